package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/policy"
)

// TestDownloadPolicy: the approval policy's rules for downloads decide
// each download by the origin of the page that started it (or its own
// address); without rules every download is saved; downloads are events,
// their progress too, and a held one only when a person answers.
func TestDownloadPolicy(t *testing.T) {
	rules, err := policy.Load(t.TempDir() + "/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.Set(policy.Rule{Key: "download", Origin: "https://*.bad.test", Decision: policy.Deny}); err != nil {
		t.Fatal(err)
	}
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent", Rules: rules})
	s := x.sessions.Get("default")
	o := x.downloadPolicy(s)
	for _, tc := range []struct {
		page, url string
		want      download.Decision
	}{
		{"https://x.bad.test/p", "https://cdn.test/f.zip", download.Deny},
		{"", "https://x.bad.test/f.zip", download.Deny},
		{"https://good.test/", "https://x.bad.test/f.zip", download.Allow},
	} {
		if got := o.Gate(nil, download.Download{PageURL: tc.page, URL: tc.url}); got != tc.want {
			t.Errorf("page %q, url %q: %v, want %v", tc.page, tc.url, got, tc.want)
		}
	}
	none := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"}).downloadPolicy(s)
	if none.Gate(nil, download.Download{URL: "https://x.bad.test/f"}) != download.Allow {
		t.Error("without rules a download was not saved")
	}
	sub := x.events.Subscribe(8, -1)
	defer sub.Close()
	o.Notify(download.Download{State: "in_progress"})
	o.Notify(download.Download{State: "held"})
	o.Progress(download.Download{State: "in_progress", Bytes: 5, Total: 10})
	o.Notify(download.Download{State: "completed"})
	<-sub.Ready()
	var kinds []string
	for _, e := range sub.Next() {
		kinds = append(kinds, e.Kind)
	}
	if len(kinds) != 3 || kinds[0] != events.DownloadStarted || kinds[1] != events.DownloadProgress || kinds[2] != events.DownloadDone {
		t.Fatalf("events %v", kinds)
	}
}
