package e2e

import (
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// startBrowser opens a page so the default session has a running browser,
// and returns the daemon's pid.
func startBrowser(t *testing.T, e *env) int {
	t.Helper()
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	if len(e.browserProcesses()) == 0 {
		t.Fatal("no browser process found after open")
	}
	var st struct{ PID int }
	e.okJSON(&st, "daemon", "status")
	return st.PID
}

// waitNoBrowser waits until no browser process of the environment is left
// (polling /proc: there is no event for the exit of a non-child).
func waitNoBrowser(e *env, within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		left := e.browserProcesses()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestNoOrphanAfterClose(t *testing.T) {
	e := newEnv(t)
	startBrowser(t, e)
	if got := e.ok("close"); got != "closed session default\n" {
		t.Fatalf("close printed %q", got)
	}
	if left := waitNoBrowser(e, 10*time.Second); len(left) > 0 {
		t.Fatalf("browser processes left after close: %v", left)
	}
	// The session starts again on next use.
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("dupes.html"))
}

func TestNoOrphanAfterDaemonStop(t *testing.T) {
	e := newEnv(t)
	startBrowser(t, e)
	e.ok("daemon", "stop")
	if left := e.waitNoProcesses(10 * time.Second); len(left) > 0 {
		t.Fatalf("processes left after daemon stop: %v", left)
	}
}

func TestNoOrphanAfterDaemonKilled(t *testing.T) {
	e := newEnv(t)
	pid := startBrowser(t, e)
	if err := kill(pid); err != nil {
		t.Fatal(err)
	}
	// The browser dies with the daemon: the kernel signals it (Pdeathsig)
	// and Chromium exits when its pipe closes.
	if left := e.waitNoProcesses(10 * time.Second); len(left) > 0 {
		t.Fatalf("processes left after the daemon was killed: %v", left)
	}
	// The next start finds the dead daemon's socket and lock and carries on.
	e.ok("daemon", "start")
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
}

// TestDaemonOutlivesStartDeadline keeps a daemon idle past the deadline
// the CLI gives `daemon start|stop|status` (30 s): the daemon itself has
// none, and its browser session survives.
func TestDaemonOutlivesStartDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := startBrowser(t, e)
	// Nothing to wait on: the point is that nothing happens.
	time.Sleep(31 * time.Second)
	var st struct {
		PID      int
		Sessions []struct{ Name string }
	}
	e.okJSON(&st, "daemon", "status")
	if st.PID != pid || len(st.Sessions) != 1 {
		t.Fatalf("after 31 s idle: daemon %d (was %d), sessions %+v", st.PID, pid, st.Sessions)
	}
}
