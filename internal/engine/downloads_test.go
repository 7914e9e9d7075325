package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestDownloads(t *testing.T) {
	a := testpages.Start(t, "127.0.0.1")
	b := ownBrowser(t)
	if _, err := b.Downloads(); codeOf(err) != apitype.TransportUnsupported {
		t.Fatalf("downloads before they are enabled: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "downloads")
	if err := b.EnableDownloads(ctxT(t), dir, engine.DownloadOptions{}); err != nil {
		t.Fatal(err)
	}
	tab, _ := b.Tab(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("download.html")); err != nil {
		t.Fatal(err)
	}
	link := ref(t, snap(t, tab), "link", "Download report")
	for i := range 2 {
		if _, err := action.Click(ctxT(t), tab, link, action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := b.WaitDownload(ctxT(t))
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
	list, _ := b.Downloads()
	if len(list) != 2 || list[0].Seq >= list[1].Seq {
		t.Fatalf("downloads list: %+v", list)
	}
	// Each finished download is returned once: with none left, a wait
	// times out.
	short, cancel := context.WithTimeout(ctxT(t), 300*time.Millisecond)
	defer cancel()
	if _, err := b.WaitDownload(short); codeOf(err) != apitype.Timeout {
		t.Fatalf("wait with every download returned: %v", err)
	}
}

// TestDownloadPolicy: a denied download is cancelled and leaves nothing; a
// held one waits out of the directory until it is released (then it is
// filed like any other) or refused (then nothing is kept); the listener
// hears each begin and end.
func TestDownloadPolicy(t *testing.T) {
	a := testpages.Start(t, "127.0.0.1")
	b := ownBrowser(t)
	root := t.TempDir()
	dir, hold := filepath.Join(root, "downloads"), filepath.Join(root, "held")
	decisions := make(chan engine.DownloadDecision, 4)
	told := make(chan engine.Download, 16)
	err := b.EnableDownloads(ctxT(t), dir, engine.DownloadOptions{HoldDir: hold,
		Gate: func(d engine.Download) engine.DownloadDecision {
			if d.PageURL != a.Page("download.html") {
				t.Errorf("the gate saw page %q", d.PageURL)
			}
			return <-decisions
		},
		Notify: func(d engine.Download) { told <- d }})
	if err != nil {
		t.Fatal(err)
	}
	tab, _ := b.Tab(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("download.html")); err != nil {
		t.Fatal(err)
	}
	link := ref(t, snap(t, tab), "link", "Download report")
	start := func(dec engine.DownloadDecision) {
		decisions <- dec
		if _, err := action.Click(ctxT(t), tab, link, action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	entries := func(d string) int {
		list, _ := os.ReadDir(d)
		return len(list)
	}

	start(engine.DownloadDeny)
	d, err := b.WaitDownload(ctxT(t))
	if err != nil || d.State != "denied" || d.Path != "" {
		t.Fatalf("denied download: %+v %v", d, err)
	}
	if begun := <-told; begun.State != "denied" {
		t.Errorf("notified: %+v", begun)
	}

	start(engine.DownloadHold)
	var held engine.Download
	for held.State != "held" { // the listener's events are the wait
		select {
		case held = <-told:
		case <-ctxT(t).Done():
			t.Fatal("the held download never completed")
		}
	}
	if entries(hold) != 1 {
		t.Fatalf("the held file is not in the hold directory")
	}
	got, err := b.ReleaseDownload(held.ID, true)
	if err != nil || got.State != "completed" || got.Path != filepath.Join(dir, "report.txt") {
		t.Fatalf("released: %+v %v", got, err)
	}
	if data, _ := os.ReadFile(got.Path); string(data) != "quarterly report\n" || entries(hold) != 0 {
		t.Fatalf("released file %q, %d left held", data, entries(hold))
	}
	if _, err := b.ReleaseDownload(held.ID, true); err == nil {
		t.Error("a download released twice")
	}

	start(engine.DownloadHold)
	held = engine.Download{}
	for held.State != "held" {
		select {
		case held = <-told:
		case <-ctxT(t).Done():
			t.Fatal("the second held download never completed")
		}
	}
	if got, err := b.ReleaseDownload(held.ID, false); err != nil || got.State != "denied" || entries(hold) != 0 {
		t.Fatalf("refused: %+v %v, %d left held", got, err, entries(hold))
	}
	// The denied ones left nothing behind in the directory.
	if n := entries(dir); n != 1 {
		t.Errorf("%d files in the downloads directory, want the one released", n)
	}
}
