package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// TestControl: a take-over moves the tab's epoch on, ends its writes
// waiting for approval and is an event; so is a resume; a second resume
// changes nothing.
func TestControl(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	s := sessions.New(sessions.Config{Home: t.TempDir()}).Get("work")
	sub := x.events.Subscribe(8, -1)
	defer sub.Close()
	ctl := control{Control: s, q: x.waiting, events: x.events, session: "work"}
	if e := ctl.TakeOver("s1"); e != 1 {
		t.Fatalf("take-over epoch %d", e)
	}
	if mode, _ := ctl.Mode("s1"); mode != sessions.ModeHuman {
		t.Fatalf("mode %q", mode)
	}
	if e, ok := ctl.Resume("s1"); !ok || e != 2 {
		t.Fatalf("resume: %d %v", e, ok)
	}
	if _, ok := ctl.Resume("s1"); ok {
		t.Fatal("a second resume")
	}
	<-sub.Ready()
	evs := sub.Next()
	if len(evs) != 2 || evs[0].Kind != events.TabTakenOver || evs[1].Kind != events.TabResumed || evs[1].Epoch != 2 || evs[0].Session != "work" {
		t.Fatalf("events %+v", evs)
	}
}
