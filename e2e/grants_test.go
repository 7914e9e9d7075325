package e2e

import (
	"strings"
	"testing"
)

// TestTaskGrants: a task writes only in tabs no other task owns; the tabs
// it opens are its own, the browser's first tab is shared; ending a task
// refuses its writes (NO_GRANT, nothing sent) and frees its tabs.
func TestTaskGrants(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, clicks := countingPage(t, `<h1>Shop</h1><button onclick="fetch('/hit')">Buy</button>`)
	buy := `role=button[name="Buy"]`
	// The browser's first tab is nobody's: both tasks may act there.
	e.ok("--task", "a", "open", srv.URL+"/")
	e.ok("--task", "b", "click", buy)
	eventually(t, "the click in the shared tab", func() bool { return clicks.Load() == 1 })

	// Task a's own tab.
	var tab struct {
		ID string `json:"id"`
	}
	e.okJSON(&tab, "--task", "a", "tab", "new", srv.URL+"/")
	e.ok("--task", "a", "click", buy)
	eventually(t, "the owner's click", func() bool { return clicks.Load() == 2 })

	// Task b may look at it and switch to it, but not act in it or close it.
	e.ok("--task", "b", "switch", tab.ID)
	if got := e.ok("--task", "b", "text"); !strings.Contains(got, "Shop") {
		t.Fatalf("task b reading task a's tab: %q", got)
	}
	for _, args := range [][]string{{"click", buy}, {"tab", "close", tab.ID}, {"press", "Enter"}} {
		r := e.run(append([]string{"--json", "--task", "b"}, args...)...)
		if code, _, notExec := errorJSON(t, r); code != "NO_GRANT" || !notExec {
			t.Errorf("task b %v in task a's tab: %s not_executed=%v %s", args, code, notExec, r.stdout)
		}
	}
	if r := e.run("--task", "b", "click", buy); !strings.Contains(r.stderr, `belongs to task "a"`) || !strings.Contains(r.stderr, "loupe tab new") {
		t.Errorf("the refusal should name the owner and a way on, as CLI commands: %s", r.stderr)
	}
	if n := clicks.Load(); n != 2 {
		t.Fatalf("the page saw %d clicks, want 2: a refused write must not run", n)
	}
	// Each refusal is in the ledger: not executed, NO_GRANT.
	refusals := 0
	for _, op := range ledgerOps(e) {
		if op.Code == "NO_GRANT" {
			refusals++
			if op.State != "not_executed" {
				t.Errorf("a refused write is recorded as %s: %+v", op.State, op)
			}
		}
	}
	if refusals == 0 {
		t.Error("no NO_GRANT refusal is in the ledger")
	}
	if got := e.ok("tasks"); !strings.Contains(got, "task a in session default") || !strings.Contains(got, "tabs "+tab.ID) {
		t.Errorf("tasks: %s", got)
	}

	// Ending task a refuses its writes and frees its tab.
	if got := e.ok("task", "end", "a"); !strings.Contains(got, "ended task a") {
		t.Fatalf("task end: %s", got)
	}
	r := e.run("--json", "--task", "a", "click", buy)
	if code, _, notExec := errorJSON(t, r); code != "NO_GRANT" || !notExec {
		t.Errorf("a write of an ended task: %s not_executed=%v", code, notExec)
	}
	e.ok("--task", "a", "text") // it may still read
	e.ok("--task", "b", "click", buy)
	eventually(t, "the click in the freed tab", func() bool { return clicks.Load() == 3 })
	if n := clicks.Load(); n != 3 {
		t.Errorf("the page saw %d clicks, want 3", n)
	}
}

// TestGrantRevokedForMCP: an agent keeps its grant; after the daemon
// restarts, or a person ends its task, its next write is refused
// (NO_GRANT, nothing sent) and a fresh read gives it a new grant — except
// for an ended task, which stays ended.
func TestGrantRevokedForMCP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, clicks := countingPage(t, `<h1>Shop</h1><button onclick="fetch('/hit')">Buy</button>`)
	e.ok("open", srv.URL+"/")
	m := startMCP(t, e, "--daemon", "--task", "agent-1")
	buy := refAfter(t, m.ok("browser_snapshot", nil), "Shop", "button", "Buy")
	m.ok("browser_click", map[string]any{"ref": buy})
	eventually(t, "the agent's click", func() bool { return clicks.Load() == 1 })

	// The daemon restarts: the agent's grant is from the old one.
	e.ok("daemon", "stop")
	e.ok("open", srv.URL+"/")
	r := m.call("browser_click", map[string]any{"ref": buy})
	if code, notExec := errorOf(t, r); code != "NO_GRANT" || !notExec || !strings.Contains(r.text, "earlier daemon") || !strings.Contains(r.text, "browser_snapshot") {
		t.Errorf("a write under the old daemon's grant: %s", r.text)
	}
	if n := clicks.Load(); n != 1 {
		t.Fatalf("the page saw %d clicks, want 1", n)
	}
	buy = refAfter(t, m.ok("browser_snapshot", nil), "Shop", "button", "Buy")
	m.ok("browser_click", map[string]any{"ref": buy})
	eventually(t, "the click under the new grant", func() bool { return clicks.Load() == 2 })

	// A person ends the agent's task.
	e.ok("task", "end", "agent-1")
	for range 2 {
		r = m.call("browser_click", map[string]any{"ref": buy})
		if code, notExec := errorOf(t, r); code != "NO_GRANT" || !notExec || !strings.Contains(r.text, "ended") {
			t.Errorf("a write of an ended task: %s", r.text)
		}
		m.ok("browser_snapshot", nil)
	}
	if n := clicks.Load(); n != 2 {
		t.Errorf("the page saw %d clicks, want 2", n)
	}
}
