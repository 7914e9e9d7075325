package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
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
	if err := b.EnableDownloads(ctxT(t), dir); err != nil {
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
