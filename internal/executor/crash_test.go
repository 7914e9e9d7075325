package executor

import (
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// TestCrashLoopBound: a tab is reloaded after each of its first
// maxCrashes crashes within crashWindow, then left for a person; older
// crashes fall out of the window.
func TestCrashLoopBound(t *testing.T) {
	var c crashes
	k := laneKey{"default", "s1"}
	now := time.Unix(1_000_000, 0)
	for i := 1; i <= maxCrashes; i++ {
		if !c.again(k, now.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("crash %d was not reloaded", i)
		}
	}
	if c.again(k, now.Add(time.Minute)) {
		t.Fatal("a crash loop was reloaded again")
	}
	if !c.again(k, now.Add(crashWindow+2*time.Minute)) || !c.again(laneKey{"default", "s2"}, now) {
		t.Fatal("a crash after the window, or another tab's, was not reloaded")
	}
	for _, reloading := range []bool{true, false} {
		e := crashError("s1", reloading)
		if e.Code != apitype.TabCrashed || len(e.Recovery) != 2 {
			t.Fatalf("crash error %+v", e)
		}
	}
}
