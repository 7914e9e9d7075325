package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/grid"
	"github.com/loupe-dev/loupe/internal/gridtest"
	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// leases lists the Grid lease files under a sessions directory.
func leases(t *testing.T, sessions string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(sessions, "*", "grid-*.lease"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A daemon killed with SIGKILL deletes nothing: its WebDriver session
// stays on the Grid, the slot held, until the daemon next starts and
// deletes it (the lease file the dead daemon left names it). An
// in-process MCP server of the same home that still runs keeps its own
// session through that start, and its next call works in it; killed in
// turn, it leaves its session to the daemon's next start too.
func testGridOwnerKilled(t *testing.T, g *gridtest.Grid) {
	e := gridEnv(t, g)
	srv := testpages.Start(t, "127.0.0.1")
	daemonSessions := filepath.Join(e.home, "sessions")
	mcpSessions := filepath.Join(homedir.MCPHome(e.home), "sessions")

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := e.command("mcp", "--grid", g.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	defer cs.Close()
	m := mcpCaller{t, ctx, cs}
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	e.ok("open", srv.Page("dupes.html"))
	g.WaitFree(t, 0)
	held, kept := leases(t, daemonSessions), leases(t, mcpSessions)
	if len(held) != 1 || len(kept) != 1 {
		t.Fatalf("lease files: the daemon's %v, the MCP server's %v; want one each", held, kept)
	}
	if fi, err := os.Stat(held[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the daemon's lease file: %v %v", fi, err)
	}

	var st struct{ PID int }
	e.okJSON(&st, "daemon", "status")
	if err := kill(st.PID); err != nil {
		t.Fatal(err)
	}
	if !waitGone(st.PID, 10*time.Second) {
		t.Fatalf("the daemon (pid %d) outlived SIGKILL", st.PID)
	}
	// Nobody told the Grid: the dead daemon's slot is still held.
	if free := g.Status(t).Free(); free != 0 {
		t.Fatalf("the Grid freed a slot of a killed daemon by itself (%d free): nothing left to test", free)
	}

	start := time.Now()
	e.ok("daemon", "start")
	t.Logf("daemon start with a leftover lease took %v", time.Since(start).Round(time.Millisecond))
	// The start deleted the session before it said ready; /status is
	// polled (bounded) as the Grid announces no freed slot.
	g.WaitFree(t, 1)
	if left := leases(t, daemonSessions); len(left) != 0 {
		t.Errorf("the dead daemon's lease is still on record after the start freed it: %v", left)
	}
	// The Grid no longer has the session, and says so as a session that
	// is ended already (404, "invalid session id"): a lease whose delete
	// was answered too late for its start is forgotten at the next.
	id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(held[0]), "grid-"), ".lease")
	c, err := grid.New(g.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.EndSession(ctx, id); err != nil {
		t.Errorf("ending again the WebDriver session %s the start ended: %v", id, err)
	}
	if now := leases(t, mcpSessions); len(now) != 1 || now[0] != kept[0] {
		t.Errorf("the running MCP server's lease: %v, was %v", now, kept)
	}
	if snap := m.ok("browser_snapshot", nil); !strings.Contains(snap, srv.Page("basic.html")) {
		t.Fatalf("the running MCP server's session after the daemon's start:\n%s", snap)
	}
	log, _ := os.ReadFile(homedir.LogPath(e.home))
	if !strings.Contains(string(log), "ended the WebDriver session of a loupe process that died") {
		t.Errorf("the daemon's log does not say it freed the slot:\n%s", log)
	}

	if err := kill(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if !waitGone(cmd.Process.Pid, 10*time.Second) {
		t.Fatalf("the MCP server (pid %d) outlived SIGKILL", cmd.Process.Pid)
	}
	if free := g.Status(t).Free(); free != 1 {
		t.Fatalf("the Grid has %d free slots after the MCP server was killed, want 1 (its slot held)", free)
	}
	e.ok("daemon", "stop")
	e.ok("daemon", "start")
	g.WaitFree(t, 2)
	if left := leases(t, mcpSessions); len(left) != 0 {
		t.Errorf("the killed MCP server's lease is still on record: %v", left)
	}
	e.ok("daemon", "stop")
}
