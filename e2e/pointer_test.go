package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

var obsToken = regexp.MustCompile(`obs-[0-9a-f]+`)

// TestPointerByObservation: an agent acts on a canvas target by the
// coordinates of a screenshot, from the CLI and MCP; after a take-over and
// resume the same observation is STALE_OBSERVATION and sends nothing; the
// ledger keeps the coordinates and the observation.
func TestPointerByObservation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, _ := testpages.StartPair(t)
	e.ok("open", srv.Page("canvas.html"))
	tok := obsToken.FindString(e.ok("screenshot"))
	if tok == "" {
		t.Fatal("the screenshot names no observation")
	}
	// The red square is at (260, 140)-(310, 190) of the viewport (scale 1).
	e.ok("--op-id", "ptr-1", "pointer", "click", "285", "165", "--obs", tok)
	if got := e.ok("eval", "document.getElementById('status').textContent"); !strings.Contains(got, "hit at 225,125 trusted true") {
		t.Fatalf("the pointer click: %s", got)
	}
	if show := e.ok("ops", "show", "ptr-1"); !strings.Contains(show, `"x":285`) || !strings.Contains(show, tok) {
		t.Errorf("the ledger does not keep the coordinates and the observation:\n%s", show)
	}
	e.ok("takeover")
	e.ok("resume")
	code, _, notExec := errorJSON(t, e.run("--json", "pointer", "click", "285", "165", "--obs", tok))
	if code != "STALE_OBSERVATION" || !notExec {
		t.Fatalf("a pointer action after a take-over: %s (not executed %v)", code, notExec)
	}

	m := startMCP(t, e, "--daemon")
	text := m.ok("browser_screenshot", map[string]any{})
	tok = obsToken.FindString(text)
	if tok == "" {
		t.Fatalf("MCP screenshot names no observation: %s", text)
	}
	e.ok("eval", "document.getElementById('status').textContent = 'no hit'")
	m.ok("browser_pointer", map[string]any{"action": "dblclick", "x": 285, "y": 165, "observation": tok})
	if got := e.ok("eval", "document.getElementById('status').textContent"); !strings.Contains(got, "hit at 225,125") {
		t.Fatalf("the MCP pointer click: %s", got)
	}
	e.ok("eval", "scrollTo(0, 50)")
	if r := m.call("browser_pointer", map[string]any{"action": "click", "x": 285, "y": 165, "observation": tok}); !r.isErr || !strings.Contains(r.text, "STALE_OBSERVATION") {
		t.Fatalf("an MCP pointer action after a scroll: %s", r.text)
	}

	// An annotated screenshot lists the refs it labels, in a cross-site
	// frame too (the labels' pixels are checked in the engine's test).
	e.ok("open", srv.Page("frames/top.html"))
	e.ok("wait", "--text", "cross idle")
	out := e.ok("screenshot", "--annotate")
	if !strings.Contains(out, `- button "Go" [ref=`) || strings.Count(out, `button "Go"`) < 2 {
		t.Fatalf("screenshot --annotate:\n%s", out)
	}
	if text := m.ok("browser_screenshot", map[string]any{"annotate": true}); !strings.Contains(text, "the refs labelled on the image:") || !strings.Contains(text, `button "Go" [ref=`) {
		t.Fatalf("MCP annotate:\n%s", text)
	}
}
