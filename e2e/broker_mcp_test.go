package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestRemoteMCPThroughTheBroker: a remote agent's MCP server (loupe mcp
// --broker URL, its own LOUPE_HOME, the token from the environment)
// navigates, snapshots and clicks in the browser of the broker's machine;
// its screenshot lands in its own relay directory; tools the broker does
// not offer are not listed, and a call of one says why, not executed.
func TestRemoteMCPThroughTheBroker(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the browser's machine
	srv := testpages.Start(t, "127.0.0.1")
	var served struct{ URL string }
	e.okJSON(&served, "broker", "serve")
	var reg struct{ Token string }
	e.okJSON(&reg, "broker", "register", "--host", "build-box")

	remote := newEnv(t) // the agent's machine: nothing of the browser's
	if r := remote.run("mcp", "--broker", served.URL); r.code != 2 || !strings.Contains(r.stderr, "LOUPE_BROKER_TOKEN") {
		t.Fatalf("--broker without a token: exit %d %s", r.code, r.stderr)
	}
	remote.extra = append(remote.extra, "LOUPE_BROKER_TOKEN="+reg.Token)
	m := startMCP(t, remote, "--broker", served.URL, "--session", "ws1")

	tools, err := m.cs.ListTools(m.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "browser_click") || slices.Contains(names, "browser_record") || slices.Contains(names, "browser_upload") {
		t.Fatalf("the remote server's tools: %v", names)
	}
	if r := m.call("browser_record", map[string]any{"action": "start"}); !r.isErr || !strings.Contains(r.text, "TRANSPORT_UNSUPPORTED") {
		t.Fatalf("a tool the broker does not offer: %s", r.text)
	}

	snap := m.ok("browser_navigate", map[string]any{"url": srv.Page("form.html")})
	ref := regexp.MustCompile(`button "Far away" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if ref == nil {
		t.Fatalf("the remote navigate's snapshot:\n%s", snap)
	}
	if out := m.ok("browser_click", map[string]any{"ref": ref[1]}); !strings.Contains(out, "clicked-far") {
		t.Fatalf("the remote click's report:\n%s", out)
	}
	if got := m.ok("browser_snapshot", map[string]any{}); !strings.Contains(got, "clicked-far") {
		t.Fatalf("the remote snapshot after the click:\n%s", got)
	}
	shot := m.ok("browser_screenshot", map[string]any{})
	relay := filepath.Join(remote.home, "broker-relay", "ws1")
	path := regexp.MustCompile(regexp.QuoteMeta(relay) + `/[^\s"]+\.png`).FindString(shot)
	if path == "" {
		t.Fatalf("the screenshot's path is not in the relay directory %s:\n%s", relay, shot)
	}
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Fatalf("the relayed screenshot %s: %v", path, err)
	}
}
