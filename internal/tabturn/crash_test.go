package tabturn

import (
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// TestCrashLoopBound: a tab is reloaded after each of its first
// MaxCrashes crashes within CrashWindow, then left for a person; older
// crashes fall out of the window, and each tab counts its own.
func TestCrashLoopBound(t *testing.T) {
	var c Crashes
	now := time.Unix(1_000_000, 0)
	for i := 1; i <= MaxCrashes; i++ {
		if !c.Again("default", "s1", now.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("crash %d was not reloaded", i)
		}
	}
	if c.Again("default", "s1", now.Add(time.Minute)) {
		t.Fatal("a crash loop was reloaded again")
	}
	if !c.Again("default", "s1", now.Add(CrashWindow+2*time.Minute)) || !c.Again("default", "s2", now) || !c.Again("other", "s1", now) {
		t.Fatal("a crash after the window, or another tab's, was not reloaded")
	}
	for _, reloading := range []bool{true, false} {
		e := CrashError("s1", reloading)
		if e.Code != apitype.TabCrashed || len(e.Recovery) != 2 {
			t.Fatalf("crash error %+v", e)
		}
	}
}
