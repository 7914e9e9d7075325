package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestClientsKeepTheirOwnTabs: the CLI and an MCP agent on one daemon
// session each keep their own current tab. The CLI's `tab new` and
// `switch` never retarget the agent's next snapshot, wait or click, and
// each sees its own tab marked current in the tab list.
func TestClientsKeepTheirOwnTabs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	m := startMCP(t, e, "--daemon")
	snap := m.ok("browser_snapshot", nil)
	if !strings.Contains(snap, "Basic form fixture") {
		t.Fatalf("the agent's first tab should be the session's first:\n%s", snap)
	}
	agentTab := firstField(t, m.ok("browser_status", nil), "active")

	// The CLI opens a second tab and works there.
	e.ok("tab", "new", srv.Page("frames/child.html?label=cli"))
	if got := e.ok("text"); !strings.Contains(got, "cli idle") {
		t.Fatalf("the CLI's current tab is its new one: %q", got)
	}
	// The agent is still on its own tab.
	if got := m.ok("browser_snapshot", nil); !strings.Contains(got, "Basic form fixture") || strings.Contains(got, "cli idle") {
		t.Fatalf("the CLI's tab new retargeted the agent:\n%s", got)
	}
	m.ok("browser_wait", map[string]any{"text": "Basic form fixture"})
	if got := firstField(t, m.ok("browser_status", nil), "active"); got != agentTab {
		t.Errorf("the agent's current surface moved from %s to %s", agentTab, got)
	}
	// Each client's tab list stars its own current tab.
	tabs := m.ok("browser_tabs", nil)
	if !strings.Contains(tabs, "* "+agentTab+" ") {
		t.Errorf("the agent's tab list should star %s:\n%s", agentTab, tabs)
	}
	cliTabs := e.ok("tabs")
	if strings.Contains(cliTabs, "* "+agentTab+" ") {
		t.Errorf("the CLI's tab list stars the agent's tab:\n%s", cliTabs)
	}
	// The agent's switch to the CLI's tab does not move the CLI.
	var other string
	for _, line := range strings.Split(tabs, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] != "*" {
			other = f[0]
		}
	}
	if other == "" {
		t.Fatalf("no second tab in:\n%s", tabs)
	}
	m.ok("browser_tabs", map[string]any{"action": "select", "surface_id": other})
	m.ok("browser_switch_surface", map[string]any{"surface_id": agentTab})
	if got := e.ok("text"); !strings.Contains(got, "cli idle") {
		t.Errorf("the agent's switch moved the CLI: %q", got)
	}

	// A shell working as a task is a client of its own: its tab new does
	// not move the plain CLI's current tab, nor another task's.
	e.ok("--task", "shell-a", "tab", "new", srv.Page("frames/child.html?label=shella"))
	e.ok("--task", "shell-b", "tab", "new", srv.Page("frames/child.html?label=shellb"))
	for _, c := range []struct{ task, want string }{{"", "cli idle"}, {"shell-a", "shella idle"}, {"shell-b", "shellb idle"}} {
		args := []string{"text"}
		if c.task != "" {
			args = []string{"--task", c.task, "text"}
		}
		if got := e.ok(args...); !strings.Contains(got, c.want) {
			t.Errorf("task %q's current tab: want %q, got %q", c.task, c.want, got)
		}
	}
}

// firstField is the word after key in a status line ("active s1 …").
func firstField(t *testing.T, line, key string) string {
	t.Helper()
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		if f[i] == key {
			return f[i+1]
		}
	}
	t.Fatalf("no %q in %q", key, line)
	return ""
}

// TestMCPClickThatNavigates: a click that loads another page reports the
// new URL, in the text and in the structured report.
func TestMCPClickThatNavigates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	snap := m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	link := refAfter(t, snap, "Basic form fixture", "link", "Shadow page")
	r := m.call("browser_click", map[string]any{"ref": link})
	if r.isErr || !strings.Contains(r.text, "navigated: "+srv.Page("shadow.html")) {
		t.Fatalf("click on a link: %s", r.text)
	}
	b, _ := json.Marshal(r.res.StructuredContent)
	var out struct {
		Executed bool `json:"executed"`
		Report   struct {
			Navigated string `json:"navigated"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &out); err != nil || !out.Executed || out.Report.Navigated != srv.Page("shadow.html") {
		t.Errorf("structured content of the click: %s", b)
	}
	// A dialog the click's handler opens a moment later, from a timer, is
	// in the click's report. The report waits for one until 75 ms after
	// the input; a machine loaded far beyond its cores can run the page's
	// 25 ms timer later than that, so a click whose report missed it is
	// tried again (at most three clicks, one must report it), and the
	// dialog it missed must be in the dialog log: answered, not lost.
	for try := 1; ; try++ {
		snap = m.ok("browser_navigate", map[string]any{"url": srv.Page("later.html")})
		r = m.call("browser_click", map[string]any{"ref": refAfter(t, snap, "Later", "button", "Later")})
		if r.isErr {
			t.Fatalf("a click whose handler opens an alert 25 ms later: %s", r.text)
		}
		if strings.Contains(r.text, `alert "later"`) {
			break
		}
		t.Logf("click %d: the alert came after the report's window: %s", try, r.text)
		eventually(t, "the late alert in the dialog log", func() bool {
			return strings.Count(m.ok("browser_dialogs", nil), "later") >= try
		})
		if try == 3 {
			t.Fatalf("three clicks whose handler opens an alert 25 ms later, none reported it; the last: %s", r.text)
		}
	}
}

// TestMCPCloseTab: browser_close closes the agent's current tab only; with
// no tab left, the next call says how to open one, in tool calls, and
// loupe picks no other tab by itself.
func TestMCPCloseTab(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html"), "snapshot": false})
	if got := m.ok("browser_close", nil); !strings.Contains(got, "closed") {
		t.Fatalf("browser_close: %s", got)
	}
	r := m.call("browser_snapshot", nil)
	if code, _ := errorOf(t, r); code != "SURFACE_CLOSED" || !strings.Contains(r.text, `browser_tabs {"action":"new"}`) || strings.Contains(r.text, "loupe ") {
		t.Fatalf("snapshot after closing the last tab: %s", r.text)
	}
	got := m.ok("browser_navigate", map[string]any{"url": srv.Page("dupes.html"), "new_tab": true})
	if !strings.Contains(got, "Duplicate names fixture") {
		t.Fatalf("a new tab after the last closed: %s", got)
	}
	// With no tab left, a plain navigate opens one (the CLI's open too).
	m.ok("browser_close", nil)
	if got := m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")}); !strings.Contains(got, "Basic form fixture") {
		t.Fatalf("navigate with no tab open: %s", got)
	}
	e.ok("open", srv.Page("basic.html"))
	e.ok("tab", "close")
	if got := e.ok("open", srv.Page("dupes.html")); !strings.Contains(got, "dupes fixture") {
		t.Fatalf("loupe open with no tab open: %s", got)
	}
	// The session itself is still there until asked.
	m.ok("browser_close", map[string]any{"session": true})
}

// TestMCPOnARestartedDaemon: an MCP server on the daemon outlives it. A
// call after the daemon stopped starts it again, as the CLI does, instead
// of failing; a call after someone else restarted it says the daemon
// restarted and what that changed, before its answer.
func TestMCPOnARestartedDaemon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e, "--daemon")
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	daemonPID := func() int {
		var st struct{ PID int }
		e.okJSON(&st, "daemon", "status")
		return st.PID
	}
	first := daemonPID()

	// Stopped: the next call brings it back.
	e.ok("daemon", "stop")
	snap := m.ok("browser_snapshot", nil)
	if !strings.Contains(snap, "the daemon restarted since your last call") || !strings.Contains(snap, "Basic form fixture") {
		t.Fatalf("the first call after the daemon stopped:\n%s", snap)
	}
	if second := daemonPID(); second == first || second == 0 {
		t.Fatalf("the daemon was not started again (pid %d, then %d)", first, second)
	}
	if again := m.ok("browser_snapshot", nil); strings.Contains(again, "restarted") {
		t.Fatalf("the notice is said once:\n%s", again)
	}

	// Restarted by someone else: the next call, an error this time, says so.
	e.ok("daemon", "stop")
	e.ok("status")
	r := m.call("browser_click", map[string]any{"ref": "e1"})
	if !r.isErr || !strings.Contains(r.text, "the daemon restarted since your last call") || strings.Contains(r.text, "INTERNAL") {
		t.Fatalf("a call after another restart: %+v", r)
	}
}
