package chromium

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

func findOrSkip(t *testing.T) string {
	t.Helper()
	bin, err := Find(os.Getenv("LOUPE_CHROMIUM"))
	if err != nil {
		t.Fatalf("chromium is required for this test: %v", err)
	}
	return bin
}

func TestLaunchAndStopLeavesNothing(t *testing.T) {
	bin := findOrSkip(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Launch(ctx, LaunchOptions{Binary: bin, ProfileDir: dir + "/s/profile"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cdpproto.Call(ctx, b.Conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.TargetInfos) == 0 {
		t.Fatal("no targets")
	}
	if _, err := os.Stat(dir + "/s/browser.pid"); err != nil {
		t.Fatalf("pid file: %v", err)
	}
	if err := b.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	groupGone(t, b.PID, 5*time.Second)
	if _, err := os.Stat(dir + "/s/browser.pid"); !os.IsNotExist(err) {
		t.Fatalf("pid file left behind: %v", err)
	}
}

func TestReapKillsLeftoverBrowser(t *testing.T) {
	bin := findOrSkip(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Launch(ctx, LaunchOptions{Binary: bin, ProfileDir: dir + "/s/profile"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Kill()
	killed := Reap(dir)
	if len(killed) != 1 || killed[0] != b.PID {
		t.Fatalf("Reap killed %v, want [%d]", killed, b.PID)
	}
	select {
	case <-b.Exited():
	case <-ctx.Done():
		t.Fatal("browser did not exit after Reap")
	}
}

// groupGone polls until no process is in the group: processes killed by a
// signal are reaped by their new parent asynchronously, and there is no
// event for the exit of a process that is not our child.
func groupGone(t *testing.T, pgid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := syscall.Kill(-pgid, 0)
		if err == syscall.ESRCH {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still exists %v after stop (kill -0: %v)", pgid, within, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
