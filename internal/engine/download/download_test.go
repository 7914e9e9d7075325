package download_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }

var (
	ctxT       = enginetest.Ctx
	snap       = enginetest.Snap
	ref        = enginetest.Ref
	codeOf     = enginetest.CodeOf
	ownBrowser = enginetest.OwnBrowser
)

func TestDownloads(t *testing.T) {
	t.Parallel()
	a := testpages.Start(t, "127.0.0.1")
	b := ownBrowser(t)
	dir := filepath.Join(t.TempDir(), "downloads")
	dl, err := download.Track(ctxT(t), b, dir, download.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	tab, _ := b.Surface(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("download.html")); err != nil {
		t.Fatal(err)
	}
	link := ref(t, snap(t, tab), "link", "Download report")
	for i := range 2 {
		if _, err := action.Click(ctxT(t), tab, link, action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := dl.Wait(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(dir, "report.txt")
		if i == 1 {
			want = filepath.Join(dir, "report (1).txt")
		}
		if d.State != "completed" || d.Path != want || d.SurfaceID != tab.ID || d.Filename != "report.txt" {
			t.Fatalf("download %d: %+v", i, d)
		}
		if data, err := os.ReadFile(d.Path); err != nil || string(data) != "quarterly report\n" {
			t.Fatalf("downloaded file: %q %v", data, err)
		}
	}
	list := dl.List()
	if len(list) != 2 || list[0].Seq >= list[1].Seq {
		t.Fatalf("downloads list: %+v", list)
	}
	// Each finished download is returned once: with none left, a wait
	// times out.
	short, cancel := context.WithTimeout(ctxT(t), 300*time.Millisecond)
	defer cancel()
	if _, err := dl.Wait(short); codeOf(err) != apitype.Timeout {
		t.Fatalf("wait with every download returned: %v", err)
	}
}

// TestDownloadPolicy: a denied download is cancelled and leaves nothing; a
// held one waits out of the directory until it is released (then it is
// filed like any other) or refused (then nothing is kept); the listener
// hears each begin and end.
func TestDownloadPolicy(t *testing.T) {
	t.Parallel()
	a := testpages.Start(t, "127.0.0.1")
	b := ownBrowser(t)
	root := t.TempDir()
	dir, hold := filepath.Join(root, "downloads"), filepath.Join(root, "held")
	decisions := make(chan download.Decision, 4)
	told := make(chan download.Download, 16)
	dl, err := download.Track(ctxT(t), b, dir, download.Options{HoldDir: hold,
		Gate: func(_ *download.Tracker, d download.Download) download.Decision {
			if d.PageURL != a.Page("download.html") {
				t.Errorf("the gate saw page %q", d.PageURL)
			}
			return <-decisions
		},
		Notify: func(d download.Download) { told <- d }})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	tab, _ := b.Surface(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("download.html")); err != nil {
		t.Fatal(err)
	}
	link := ref(t, snap(t, tab), "link", "Download report")
	start := func(dec download.Decision) {
		decisions <- dec
		if _, err := action.Click(ctxT(t), tab, link, action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	entries := func(d string) int {
		list, _ := os.ReadDir(d)
		return len(list)
	}

	start(download.Deny)
	d, err := dl.Wait(ctxT(t))
	if err != nil || d.State != "denied" || d.Path != "" {
		t.Fatalf("denied download: %+v %v", d, err)
	}
	if begun := <-told; begun.State != "denied" {
		t.Errorf("notified: %+v", begun)
	}

	// heldOne waits (by the listener's events) for the download held
	// complete.
	heldOne := func() download.Download {
		for {
			select {
			case d := <-told:
				if d.State == "held" {
					return d
				}
			case <-ctxT(t).Done():
				t.Fatal("the held download never completed")
			}
		}
	}
	start(download.Hold)
	held := heldOne()
	if entries(hold) != 1 {
		t.Fatalf("the held file is not in the hold directory")
	}
	got, err := dl.Release(held.ID, true)
	if err != nil || got.State != "completed" || got.Path != filepath.Join(dir, "report.txt") {
		t.Fatalf("released: %+v %v", got, err)
	}
	if data, _ := os.ReadFile(got.Path); string(data) != "quarterly report\n" || entries(hold) != 0 {
		t.Fatalf("released file %q, %d left held", data, entries(hold))
	}
	if _, err := dl.Release(held.ID, true); err == nil {
		t.Error("a download released twice")
	}

	start(download.Hold)
	held = heldOne()
	if got, err := dl.Release(held.ID, false); err != nil || got.State != "denied" || entries(hold) != 0 {
		t.Fatalf("refused: %+v %v, %d left held", got, err, entries(hold))
	}
	// The denied ones left nothing behind in the directory.
	if n := entries(dir); n != 1 {
		t.Errorf("%d files in the downloads directory, want the one released", n)
	}
}

// TestDownloadInFlightIsStaged: the browser writes a download in flight
// into the staging directory; the downloads directory (the agent's files)
// holds nothing of it until it is complete and allowed.
func TestDownloadInFlightIsStaged(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			fmt.Fprint(w, `<!doctype html><a href="/slow">Slow file</a>`)
			return
		}
		w.Header().Set("Content-Disposition", `attachment; filename="slow.bin"`)
		w.Header().Set("Content-Length", "8192")
		w.Write(make([]byte, 4096))
		w.(http.Flusher).Flush()
		select { // the rest once the test has looked
		case <-release:
			w.Write(make([]byte, 4096))
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	var once sync.Once
	defer once.Do(func() { close(release) })
	b := ownBrowser(t)
	root := t.TempDir()
	dir, staging := filepath.Join(root, "files", "downloads"), filepath.Join(root, "downloading")
	progress := make(chan download.Download, 16)
	dl, err := download.Track(ctxT(t), b, dir, download.Options{StagingDir: staging,
		Progress: func(d download.Download) {
			select {
			case progress <- d:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	tab, _ := b.Surface(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), tab, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if _, err := action.Click(ctxT(t), tab, ref(t, snap(t, tab), "link", "Slow file"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	select { // the first bytes have arrived: the download is in flight
	case d := <-progress:
		if d.State != "in_progress" {
			t.Fatalf("progress of %+v", d)
		}
	case <-ctxT(t).Done():
		t.Fatal("no progress heard")
	}
	// The browser creates the file on its own thread, after the first
	// bytes are told: poll (bounded) until it is there.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if list, _ := os.ReadDir(staging); len(list) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("nothing in the staging directory")
		}
	}
	if list, _ := os.ReadDir(dir); len(list) != 0 {
		t.Fatalf("a download in flight is in the downloads directory: %v", list)
	}
	once.Do(func() { close(release) })
	d, err := dl.Wait(ctxT(t))
	if err != nil || d.State != "completed" || d.Path != filepath.Join(dir, "slow.bin") {
		t.Fatalf("completed: %+v %v", d, err)
	}
}
