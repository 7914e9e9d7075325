package e2e

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestTimeoutHintNamesTheDeadlineThatRan: a TIMEOUT's hint reports the
// timeout the caller gave — the global --timeout, wait's own --timeout,
// MCP's timeout_ms — not the call's outer deadline.
func TestTimeoutHintNamesTheDeadlineThatRan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "1s", "wait", "--text", "never-on-this-page"}, "(it was 1s)"},
		{[]string{"wait", "--text", "never-on-this-page", "--timeout", "700ms"}, "(it was 700ms)"},
	} {
		r := e.run(c.args...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, "TIMEOUT: ") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("loupe %s: exit %d %q, want TIMEOUT naming %s", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	m := startMCP(t, e)
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	r := m.call("browser_wait", map[string]any{"text": "never-on-this-page", "timeout_ms": 500})
	if !r.isErr || !strings.Contains(r.text, "TIMEOUT") || !strings.Contains(r.text, "(it was 500)") {
		t.Errorf("MCP browser_wait timeout_ms 500:\n%s", r.text)
	}
}

// TestEndlessScriptEndsAndTheTabRecovers: `eval 'while(true){}'` ends
// with TIMEOUT at its deadline, and the tab works on: snapshot, open and
// reload (it used to stay wedged: snapshot timed out, reload INTERNAL).
func TestEndlessScriptEndsAndTheTabRecovers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	r := e.run("--timeout", "1s", "eval", "while (true) {}")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "TIMEOUT: ") {
		t.Fatalf("endless eval: exit %d %q", r.code, r.stderr)
	}
	if s := e.ok("snapshot"); !strings.Contains(s, "basic") {
		t.Fatalf("snapshot after:\n%s", s)
	}
	e.ok("reload")
	if out := e.ok("open", srv.Page("dupes.html")); !strings.Contains(out, "dupes") {
		t.Fatalf("open after: %s", out)
	}
	// Values JSON cannot carry come back readable, never INTERNAL (run
	// checks every answer for it).
	for expr, want := range map[string]string{
		"Symbol()": `"Symbol()"`, "window": `"[window]"`, "(() => { const a = {}; a.a = a; return a })()": `{"a":"[circular]"}`,
		"fetch(location.href).then((r) => r.status)": "200",
	} {
		if got := strings.TrimSpace(e.ok("eval", expr)); got != want {
			t.Errorf("eval %s: %s, want %s", expr, got, want)
		}
	}
}

// TestMCPNavigationAfterInteractiveSnapshotIsWhole: a navigation's
// snapshot after an interactive one is of the whole page (its text too),
// not shaped like the last one.
func TestMCPNavigationAfterInteractiveSnapshotIsWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	if s := m.ok("browser_snapshot", map[string]any{"interactive": true}); strings.Contains(s, "MK-BASIC-TOP") {
		t.Fatalf("the interactive snapshot has the page's text:\n%s", s)
	}
	nav := m.ok("browser_navigate", map[string]any{"url": srv.Page("dupes.html")})
	if !strings.Contains(nav, "MK-DUPES-TOP-5a17") {
		t.Fatalf("the navigation's snapshot is not the whole page:\n%s", nav)
	}
}
