package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/procid"
)

func findOrSkip(t *testing.T) string {
	t.Helper()
	bin, err := Find(os.Getenv("LOUPE_CHROMIUM"), true)
	if err != nil {
		t.Fatalf("chromium is required for this test: %v", err)
	}
	return bin
}

func TestLaunchAndStopLeavesNothing(t *testing.T) {
	t.Parallel()
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
	// The address bar's WebUI popup, which Chromium otherwise preloads in
	// a renderer of its own at start (half a start's CPU), is off: its
	// targets are listed by the time the browser answers.
	for _, ti := range res.TargetInfos {
		if strings.Contains(ti.URL, ".top-chrome") {
			t.Errorf("the browser preloaded %s (%s): a feature of disabledFeatures has a new name?", ti.URL, ti.Type)
		}
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

// TestReapKillsLeftoverBrowser: a browser whose owner has died is ended,
// whether its pid file names the owner or is an older one that does not.
func TestReapKillsLeftoverBrowser(t *testing.T) {
	t.Parallel()
	bin := findOrSkip(t)
	dead := deadProcess(t)
	for name, owner := range map[string]func(r *pidRecord){
		"owner dead": func(r *pidRecord) { r.Owner, r.OwnerStart = dead.pid, dead.start },
		"older file": nil,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			b, err := Launch(ctx, LaunchOptions{Binary: bin, ProfileDir: dir + "/s/profile"})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Kill()
			f := dir + "/s/browser.pid"
			r, err := readPidFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if owner == nil {
				os.WriteFile(f, []byte(fmt.Sprintf("%d %d %s\n", r.PID, r.Start, r.Profile)), 0o600)
			} else {
				owner(&r)
				data, _ := json.Marshal(r)
				os.WriteFile(f, data, 0o600)
			}
			killed := Reap(dir)
			if len(killed) != 1 || killed[0] != b.PID {
				t.Fatalf("Reap killed %v, want [%d]", killed, b.PID)
			}
			select {
			case <-b.Exited():
			case <-ctx.Done():
				t.Fatal("browser did not exit after Reap")
			}
			if _, err := os.Stat(f); !os.IsNotExist(err) {
				t.Errorf("pid file left: %v", err)
			}
		})
	}
}

// TestReapKeepsLiveOwnersBrowser: a browser whose owner (this process)
// still runs is no leftover, even to a Reap in another process: it keeps
// running, and so does its pid file.
func TestReapKeepsLiveOwnersBrowser(t *testing.T) {
	t.Parallel()
	bin := findOrSkip(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Launch(ctx, LaunchOptions{Binary: bin, ProfileDir: dir + "/s/profile"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Kill()
	r, err := readPidFile(dir + "/s/browser.pid")
	if err != nil || r.Owner != os.Getpid() || r.OwnerStart == 0 || r.PID != b.PID {
		t.Fatalf("pid file: %+v, %v", r, err)
	}
	if killed := Reap(dir); len(killed) > 0 {
		t.Fatalf("Reap killed %v, the browser of a live owner", killed)
	}
	if _, err := os.Stat(dir + "/s/browser.pid"); err != nil {
		t.Fatalf("pid file: %v", err)
	}
	if err := b.Conn.Browser().Call(ctx, "Browser.getVersion", nil, nil); err != nil {
		t.Fatalf("the browser after Reap: %v", err)
	}
}

// TestLeftover decides on records naming real processes (this one, and
// one that has exited), killing nothing.
func TestLeftover(t *testing.T) {
	t.Parallel()
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	me, myStart, boot := self.PID, self.Start, self.Boot
	dead := deadProcess(t)
	for _, c := range []struct {
		name       string
		r          pidRecord
		left, kill bool
	}{
		{"owner runs", pidRecord{PID: dead.pid, Start: dead.start, Owner: me, OwnerStart: myStart, Boot: boot}, false, false},
		{"owner dead, browser runs", pidRecord{PID: me, Start: myStart, Owner: dead.pid, OwnerStart: dead.start, Boot: boot}, true, true},
		{"owner's pid reused", pidRecord{PID: me, Start: myStart, Owner: me, OwnerStart: myStart + 1, Boot: boot}, true, true},
		{"browser's pid reused", pidRecord{PID: me, Start: myStart + 1, Owner: dead.pid, OwnerStart: dead.start}, true, false},
		{"browser gone", pidRecord{PID: dead.pid, Start: dead.start, Owner: dead.pid, OwnerStart: dead.start}, true, true},
		{"no owner recorded", pidRecord{PID: me, Start: myStart}, true, true},
		{"another boot", pidRecord{PID: me, Start: myStart, Owner: dead.pid, OwnerStart: dead.start, Boot: "another"}, true, false},
		{"pid 1", pidRecord{PID: 1, Owner: dead.pid, OwnerStart: dead.start}, true, false},
	} {
		if left, kill := c.r.leftover(); left != c.left || kill != c.kill {
			t.Errorf("%s: leftover %v, kill %v; want %v, %v", c.name, left, kill, c.left, c.kill)
		}
	}
}

type procID struct {
	pid   int
	start uint64
}

// deadProcess runs a process to its end and names it: its start time is
// read while it is a zombie, before it is waited for.
func deadProcess(t *testing.T) procID {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return procID{cmd.Process.Pid, p.Start}
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
