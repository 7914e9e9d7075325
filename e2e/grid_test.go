package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/gridtest"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestGrid: sessions whose browsers come from a Selenium Grid 4
// standalone on loopback (one Grid, two slots, for all of these: it takes
// seconds of a JVM to start), driven through the CLI and MCP as any
// other. The subtests run one after another on the shared Grid. The
// Grid counts a browser's start in its new-session timeout, and under a
// loaded make test one took over 10 s (GRID_BUSY for a Grid with free
// slots): it waits 25 s, which the no-free-slot subtest waits out —
// beside the package's other tests (parallel), not before them.
func TestGrid(t *testing.T) {
	t.Parallel()
	g := gridtest.Start(t, gridtest.Options{MaxSessions: 2, QueueTimeout: 25 * time.Second})
	t.Logf("Selenium Grid ready in %v", g.Startup.Round(time.Millisecond))
	t.Run("session", func(t *testing.T) { testGridSession(t, g) })
	t.Run("no free slot", func(t *testing.T) { testGridBusy(t, g) })
	t.Run("browser killed", func(t *testing.T) { testGridBrowserKilled(t, g) })
	t.Run("mcp", func(t *testing.T) { testGridMCP(t, g) })
	t.Run("owner killed", func(t *testing.T) { testGridOwnerKilled(t, g) })
}

// gridEnv is an env whose every session takes its browser from g.
func gridEnv(t *testing.T, g *gridtest.Grid) *env {
	e := newEnv(t)
	e.extra = append(e.extra, "LOUPE_GRID="+g.URL)
	return e
}

// A Grid session has every loupe feature: a snapshot through a
// cross-site frame (an out-of-process iframe) with refs, clicks by ref in
// both documents, a download into the session's files (the node is this
// machine, so the browser saves where the daemon looks); status says
// where it runs; close frees the Grid's slot.
func testGridSession(t *testing.T, g *gridtest.Grid) {
	e := gridEnv(t, g)
	a, _ := testpages.StartPair(t)
	e.ok("open", a.Page("frames/top.html"))
	var snap struct {
		Text string `json:"text"`
		Refs []struct {
			Ref     string `json:"ref"`
			FrameID string `json:"frameId"`
			Role    string `json:"role"`
			Name    string `json:"name"`
		} `json:"refs"`
	}
	e.okJSON(&snap, "snapshot")
	gos := map[string]string{}
	for _, r := range snap.Refs {
		if r.Role == "button" && r.Name == "Go" {
			gos[r.FrameID] = r.Ref
		}
	}
	if len(gos) != 3 || gos[""] == "" || !strings.Contains(snap.Text, "cross idle") {
		t.Fatalf("the snapshot of a Grid browser lacks the frames' content:\n%s", snap.Text)
	}
	for _, ref := range gos {
		e.ok("click", "@"+ref)
	}
	if got := e.ok("snapshot"); !strings.Contains(got, "clicked:cross:true") || !strings.Contains(got, "clicked:top") {
		t.Errorf("clicks by ref in the Grid browser:\n%s", got)
	}
	status := e.ok("status")
	if !strings.Contains(status, "browser on grid "+g.URL+" (WebDriver session ") || !strings.Contains(status, "node http://127.0.0.1:") {
		t.Errorf("status: %s", status)
	}
	if st := e.ok("daemon", "status"); !strings.Contains(st, "on grid "+g.URL) {
		t.Errorf("daemon status: %s", st)
	}

	e.ok("open", a.Page("download.html"))
	e.ok("click", `role=link[name="Download report"]`)
	var dl struct {
		Finished struct {
			State string `json:"state"`
			Path  string `json:"path"`
		} `json:"finished"`
	}
	e.okJSON(&dl, "downloads", "--wait")
	if data, err := os.ReadFile(dl.Finished.Path); dl.Finished.State != "completed" || err != nil || string(data) != "quarterly report\n" {
		t.Errorf("the download from the Grid browser: %+v %q %v", dl, data, err)
	}

	g.WaitFree(t, 1)
	if got := e.ok("close"); !strings.Contains(got, "closed session") {
		t.Fatalf("close: %s", got)
	}
	g.WaitFree(t, 2)
}

// With every slot taken, a session gets GRID_BUSY with the Grid's own
// words, not executed; nothing is left queued or held.
func testGridBusy(t *testing.T, g *gridtest.Grid) {
	e := gridEnv(t, g)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	e.ok("--session", "second", "open", srv.Page("basic.html"))
	g.WaitFree(t, 0)
	r := e.run("--json", "--session", "third", "open", srv.Page("basic.html"))
	var out struct {
		Error struct {
			Code, Message, Hint string
			NotExecuted         bool `json:"not_executed"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("not a JSON error (exit %d): %s %s", r.code, r.stdout, r.stderr)
	}
	// The Grid words its queue's timeout two ways: as the request's own
	// wait ends, or as the queue's reaper (every second) gets there first.
	prefix := "no free slot on the Selenium Grid at " + g.URL + ": session not created: Could not start a new session. "
	if x := out.Error; x.Code != "GRID_BUSY" || !x.NotExecuted ||
		x.Message != prefix+"New session request timed out" && x.Message != prefix+"Timed out creating session" ||
		!strings.Contains(x.Hint, "`loupe close`") {
		t.Fatalf("a third session on a full Grid: exit %d %+v", r.code, x)
	}
	e.ok("daemon", "stop") // deletes both WebDriver sessions
	g.WaitFree(t, 2)
}

// The browser dies under a write (its process killed on the node): the
// write is BROWSER_GONE with its outcome unknown, recorded, never
// replayed; the dead WebDriver session is deleted; the next call gets a
// fresh browser from the Grid.
func testGridBrowserKilled(t *testing.T, g *gridtest.Grid) {
	e := gridEnv(t, g)
	srv, keys := countingPage(t, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)
	e.ok("open", srv.URL+"/")
	var st struct {
		Grid struct {
			Session string `json:"webdriver_session"`
		} `json:"grid"`
	}
	e.okJSON(&st, "status")
	pid := g.BrowserPID(t, st.Grid.Session)
	if pid == 0 {
		t.Fatalf("the Grid does not list WebDriver session %q", st.Grid.Session)
	}
	done := make(chan result, 1)
	go func() {
		done <- e.run("--json", "--op-id", "grid-notes", "type", `role=textbox[name="Notes"]`, strings.Repeat("b", 3000))
	}()
	eventually(t, "keys reaching the page", func() bool { return keys.Load() >= 20 })
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	t.Logf("the write ended %v after the browser was killed", time.Since(start).Round(time.Millisecond))
	if code, id, notExec := errorJSON(t, r); code != "BROWSER_GONE" || id != "grid-notes" || notExec {
		t.Fatalf("type with the Grid browser killed under it: exit %d %s %s not_executed=%v\n%s", r.code, code, id, notExec, r.stdout)
	}
	unknown := ledgerOps(e, "--state", "unknown")
	if len(unknown) != 1 || unknown[0].ID != "grid-notes" || unknown[0].Code != "BROWSER_GONE" {
		t.Fatalf("the ledger should hold the write as unknown: %+v", unknown)
	}
	sent := settledCount(keys)
	// The next call is clear: a new browser from the Grid, the dead one's
	// slot given back.
	if got := e.ok("open", srv.URL+"/"); !strings.Contains(got, srv.URL) {
		t.Fatalf("open after the death: %s", got)
	}
	g.WaitFree(t, 1)
	var again struct {
		Grid struct {
			Session string `json:"webdriver_session"`
		} `json:"grid"`
	}
	e.okJSON(&again, "status")
	if again.Grid.Session == "" || again.Grid.Session == st.Grid.Session {
		t.Errorf("WebDriver sessions before and after: %q, %q", st.Grid.Session, again.Grid.Session)
	}
	if n := keys.Load(); n != sent {
		t.Errorf("%d keys reached the page after the death: the write was replayed", n-sent)
	}
	e.ok("daemon", "stop")
	g.WaitFree(t, 2)
}

// loupe mcp --grid URL takes its session's browser from the Grid, and
// gives it back when the server ends.
func testGridMCP(t *testing.T, g *gridtest.Grid) {
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command("mcp", "--grid", g.URL)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mcpCaller{t, ctx, cs}
	g.WaitFree(t, 1)
	if nav := m.ok("browser_navigate", map[string]any{"url": srv.Page("dupes.html")}); !strings.Contains(nav, "dupes fixture") {
		t.Fatalf("navigate in the Grid browser:\n%s", nav)
	}
	if st := m.ok("browser_status", nil); !strings.Contains(st, "browser on grid "+g.URL) {
		t.Errorf("browser_status: %s", st)
	}
	cs.Close()
	cmd.Wait()
	g.WaitFree(t, 2)
}
