package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestRouteAndHAR: from the CLI, a route fulfilled from a file the person
// names serves its body and an aborted one fails its requests, in the
// page and in its cross-site frame; the traffic captured since network
// start is written as a HAR file (0600) that holds the fulfilled body;
// the ledger keeps no body; routes are a policy class of their own. From
// MCP, a route with a text body, a capture and a HAR file in the
// session's files.
func TestRouteAndHAR(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := testpages.StartPair(t)
	e.ok("open", a.Page("frames/top.html"))
	dir := t.TempDir()
	mock := filepath.Join(dir, "mock.json")
	if err := os.WriteFile(mock, []byte(`{"source": "MK-FIXTURE"}`), 0o600); err != nil {
		t.Fatal(err)
	}

	if r := e.run("route", "**/x"); r.code != 2 {
		t.Errorf("a route that does nothing: exit %d, want 2 (usage)\n%s", r.code, r.stderr)
	}
	if r := e.run("route", "**/x", "--abort", "--status", "404"); r.code != 2 {
		t.Errorf("an aborted route with a status: exit %d, want 2", r.code)
	}
	if r := e.run("route", "**/{x", "--abort"); r.code != 2 || !strings.Contains(r.stderr, "open") {
		t.Errorf("a bad pattern: exit %d: %s", r.code, r.stderr)
	}

	if out := e.ok("--op-id", "route-1", "route", "**/net/data.json", "--fulfill", mock, "--header", "Access-Control-Allow-Origin: *"); !strings.Contains(out, "routed **/net/data.json") ||
		!strings.Contains(out, "mock.json, 24 bytes, Access-Control-Allow-Origin: *, Content-Type: application/json") {
		t.Fatalf("route --fulfill: %s", out)
	}
	e.ok("route", "**/net/blocked*", "--abort")
	if out := e.ok("network", "start"); !strings.Contains(out, "capturing the traffic of") {
		t.Fatalf("network start: %s", out)
	}

	fetch := func(path string) string {
		t.Helper()
		var v struct {
			Value string `json:"value"`
		}
		e.okJSON(&v, "eval", `fetch("`+path+`").then(r => r.text(), e => "failed: " + e.message)`)
		return v.Value
	}
	check := func(where string) {
		t.Helper()
		if got := fetch("/net/data.json"); got != `{"source": "MK-FIXTURE"}` {
			t.Errorf("%s: the fulfilled route gave %q", where, got)
		}
		if got := fetch("/net/blocked.json"); got != "failed: Failed to fetch" {
			t.Errorf("%s: the aborted route gave %q", where, got)
		}
	}
	check("the page")
	e.ok("switch", crossFrame(t, e, b.URL))
	check("the cross-site frame")

	if out := e.ok("routes"); !strings.Contains(out, "**/net/data.json fulfill 200") || !strings.Contains(out, "**/net/blocked* abort, 2 hits") {
		t.Errorf("routes: %s", out)
	}
	har := filepath.Join(dir, "traffic.har")
	if out := e.ok("network", "--har", har); !strings.Contains(out, "traffic.har") {
		t.Fatalf("network --har: %s", out)
	}
	if fi, err := os.Stat(har); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the HAR file: %v %v", fi, err)
	}
	checkHAR(t, har, b.URL+"/net/data.json", `{"source": "MK-FIXTURE"}`)
	if show := e.ok("ops", "show", "route-1"); strings.Contains(show, "MK-FIXTURE") || !strings.Contains(show, "withheld") {
		t.Errorf("the ledger keeps the route's body:\n%s", show)
	}
	if out := e.ok("route", "clear"); !strings.Contains(out, "cleared 2 routes") {
		t.Errorf("route clear: %s", out)
	}
	if got := fetch("/net/blocked.json"); strings.HasPrefix(got, "failed") {
		t.Errorf("after route clear: %q", got)
	}
	e.ok("policy", "set", "network", "deny")
	if r := e.run("route", "**/x", "--abort"); r.code == 0 || !strings.Contains(r.stderr, "DENIED") {
		t.Errorf("a route under policy network deny: exit %d %s", r.code, r.stderr)
	}
	e.ok("policy", "reset")

	m := startMCP(t, e, "--daemon", "--allow-eval")
	if out := m.ok("browser_route", map[string]any{"pattern": "**/net/data.json", "body": "MK-AGENT", "status": 203}); !strings.Contains(out, "fulfill 203") {
		t.Fatalf("browser_route: %s", out)
	}
	m.ok("browser_network", map[string]any{"action": "start"})
	if got := m.ok("browser_eval", map[string]any{"expression": `fetch("/net/data.json").then(async r => r.status + " " + r.headers.get("content-type") + " " + await r.text())`}); !strings.Contains(got, "203 text/plain; charset=utf-8 MK-AGENT") {
		t.Errorf("the agent's route: %s", got)
	}
	if out := m.ok("browser_route", map[string]any{"action": "list"}); !strings.Contains(out, "1 hits") {
		t.Errorf("browser_route list: %s", out)
	}
	out := m.ok("browser_network", map[string]any{"har": "agent.har"})
	path, _, _ := strings.Cut(out[strings.LastIndex(out, " to ")+4:], ";")
	if !strings.HasPrefix(path, e.home) || !strings.HasSuffix(path, "agent.har") {
		t.Fatalf("browser_network har: %s", out)
	}
	checkHAR(t, path, a.URL+"/net/data.json", "MK-AGENT")
	if out := m.ok("browser_route", map[string]any{"action": "clear", "pattern": "**/net/data.json"}); !strings.Contains(out, "cleared 1 routes") {
		t.Errorf("browser_route clear: %s", out)
	}
	if code, _ := errorOf(t, m.call("browser_route", map[string]any{"action": "clear", "pattern": "**/none"})); code != "BAD_INPUT" {
		t.Errorf("clearing a route that is not there: %s", code)
	}
}

// crossFrame is the id of the frame surface from origin (polled: a frame
// commits on its own, after the page's load; bounded, 50 listings).
func crossFrame(t *testing.T, e *env, origin string) string {
	t.Helper()
	for range 50 {
		var list struct {
			Surfaces []struct{ ID, Kind, URL string } `json:"surfaces"`
		}
		e.okJSON(&list, "surfaces")
		for _, s := range list.Surfaces {
			if s.Kind == "frame" && strings.HasPrefix(s.URL, origin) {
				return s.ID
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no frame from %s", origin)
	return ""
}

// checkHAR reads a HAR file: version 1.2, an entry for url with a
// response whose body is body.
func checkHAR(t *testing.T, path, url, body string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Log struct {
			Version string `json:"version"`
			Creator struct{ Name string }
			Entries []struct {
				Request struct {
					Method, URL string
					Headers     []struct{ Name, Value string }
				}
				Response struct {
					Status  int
					Content struct{ Text, MimeType string }
				}
				Timings map[string]float64
			}
		} `json:"log"`
	}
	if err := json.Unmarshal(raw, &h); err != nil || h.Log.Version != "1.2" || h.Log.Creator.Name != "loupe" {
		t.Fatalf("%s is not a HAR 1.2 file: %v\n%.400s", path, err, raw)
	}
	for _, en := range h.Log.Entries {
		if en.Request.URL == url && en.Response.Content.Text == body && len(en.Request.Headers) > 0 && en.Timings != nil {
			return
		}
	}
	t.Errorf("%s has no entry for %s with the body %q:\n%.2000s", path, url, body, raw)
}
