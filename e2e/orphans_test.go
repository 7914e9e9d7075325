package e2e

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/chromium"
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
	t.Parallel()
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
	t.Parallel()
	e := newEnv(t)
	startBrowser(t, e)
	e.ok("daemon", "stop")
	if left := e.waitNoProcesses(10 * time.Second); len(left) > 0 {
		t.Fatalf("processes left after daemon stop: %v", left)
	}
}

func TestNoOrphanAfterDaemonKilled(t *testing.T) {
	t.Parallel()
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

// TestDaemonOutlivesStartDeadline: the daemon has no deadline of its own,
// whatever the CLI that runs it was given (`daemon start|stop|status` get
// 30 s, or --timeout). It runs `loupe --timeout 1s daemon run`, keeps it
// idle past that second, and finds the daemon and its browser session
// still there.
func TestDaemonOutlivesStartDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cmd := e.command("--timeout", "1s", "daemon", "run")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w} // fd 3: "ready" once it serves
	cmd.Env = append(cmd.Env, "LOUPE_READY_FD=3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	r.SetReadDeadline(time.Now().Add(30 * time.Second))
	if b, err := io.ReadAll(r); string(b) != "ready\n" {
		t.Fatalf("the daemon did not report ready: %q, %v", b, err)
	}
	pid := startBrowser(t, e)
	if pid != cmd.Process.Pid {
		t.Fatalf("the session runs in daemon %d, not the one started here (%d)", pid, cmd.Process.Pid)
	}
	// Nothing to wait on: the point is that nothing happens for longer
	// than the 1 s deadline (2 s from now is well past it).
	select {
	case err := <-exited:
		t.Fatalf("the daemon exited within its CLI's deadline: %v", err)
	case <-time.After(2 * time.Second):
	}
	var st struct {
		PID      int
		Sessions []struct{ Name string }
	}
	e.okJSON(&st, "daemon", "status")
	if st.PID != pid || len(st.Sessions) != 1 {
		t.Fatalf("after 2 s idle: daemon %d (was %d), sessions %+v", st.PID, pid, st.Sessions)
	}
	e.ok("daemon", "stop")
}

// TestDaemonKeepsMCPBrowser: an in-process `loupe mcp` and the daemon
// share a LOUPE_HOME. Starting the daemon, opening a page in a daemon
// session of the MCP server's session name ("mcp"), then stopping the
// daemon leaves the MCP server's browser running: its next call reads the
// same page.
func TestDaemonKeepsMCPBrowser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	if nav := m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")}); !strings.Contains(nav, "basic") {
		t.Fatalf("navigate:\n%s", nav)
	}
	leader := browserLeader(t, e)

	e.ok("daemon", "start")
	// The daemon's own browser, for a session of the same name: its
	// profile is not the MCP server's.
	e.ok("--session", "mcp", "open", srv.Page("dupes.html"))
	e.ok("daemon", "stop")

	if !alive(leader) {
		t.Fatalf("the MCP server's browser (pid %d) is gone after the daemon started and stopped", leader)
	}
	r := m.call("browser_snapshot", nil)
	if r.isErr || !strings.Contains(r.text, srv.Page("basic.html")) {
		t.Fatalf("the MCP server's next call:\n%s", r.text)
	}
}

// TestReapsLeftoverOfKilledOwner: when the owner of a browser (the daemon,
// or an in-process MCP server) is killed with SIGKILL, what is left of its
// browser is ended when the daemon next starts. The browser here is
// Chromium behind a wrapper that leaves a helper in its process group, as
// a lingering renderer would: the kernel kills the browser with its owner
// (Pdeathsig), not the helper.
func TestReapsLeftoverOfKilledOwner(t *testing.T) {
	t.Parallel()
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	helperFile := filepath.Join(dir, "helper.pid")
	wrapper := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\n" +
		"sleep 600 </dev/null >/dev/null 2>&1 3<&- 4>&- &\n" +
		"echo $! >" + helperFile + "\n" +
		"exec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := testpages.Start(t, "127.0.0.1")

	for _, owner := range []string{"daemon", "mcp"} {
		t.Run(owner, func(t *testing.T) {
			e := newEnv(t)
			e.extra = []string{"LOUPE_CHROMIUM=" + wrapper}
			os.Remove(helperFile)
			var pid int
			if owner == "daemon" {
				pid = startBrowser(t, e)
			} else {
				cmd := e.command("mcp")
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				mcpCaller{t, ctx, cs}.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
				pid = cmd.Process.Pid
			}
			b, err := os.ReadFile(helperFile)
			if err != nil {
				t.Fatal(err)
			}
			helper, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if err := kill(pid); err != nil {
				t.Fatal(err)
			}
			// The daemon next starts once the owner is gone (its exit has
			// no event; on a loaded machine it can trail the signal).
			if !waitGone(pid, 10*time.Second) {
				t.Fatalf("the %s (pid %d) outlived SIGKILL", owner, pid)
			}
			if !alive(helper) {
				t.Fatalf("the helper (pid %d) did not outlive its owner: nothing is left to reap", helper)
			}
			e.ok("daemon", "start")
			if !waitGone(helper, 10*time.Second) {
				t.Fatalf("the helper (pid %d) of a killed %s's browser was not reaped", helper, owner)
			}
		})
	}
}

// browserLeader is the one browser process of the environment that is no
// helper (helpers have a --type).
func browserLeader(t *testing.T, e *env) int {
	t.Helper()
	var leaders []int
	for _, pid := range e.browserProcesses() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if bytes.Contains(b, []byte("--remote-debugging-pipe")) && !bytes.Contains(b, []byte("--type=")) {
			leaders = append(leaders, pid)
		}
	}
	if len(leaders) != 1 {
		t.Fatalf("browser leaders: %v, want one", leaders)
	}
	return leaders[0]
}

// alive reports whether a process runs (a zombie has exited).
func alive(pid int) bool {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(st, ')')
	return i > 0 && len(st) > i+2 && st[i+2] != 'Z' && st[i+2] != 'X'
}

// waitGone polls /proc until the process has exited (there is no event
// for the exit of a process that is not our child), for at most within.
func waitGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for alive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}
