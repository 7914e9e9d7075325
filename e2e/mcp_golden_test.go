package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
	"github.com/loupe-dev/loupe/internal/textdiff"
)

var update = flag.Bool("update", false, "rewrite e2e/testdata/mcp/*.golden from this run (review the diff)")

// TestMCPGolden speaks raw JSON-RPC to `loupe mcp` over stdio and compares
// each exchange with a golden transcript in testdata/mcp, so the wire an
// agent sees is pinned: the handshake, the whole generated tool list
// (names, descriptions, input schemas), a navigation with its snapshot, a
// snapshot, a click with its write report, a misspelt field, a ref that
// was never issued and a stale one. What varies between runs (the fixture
// server's origin, LOUPE_HOME, elapsed times, where a click landed) is
// replaced by named placeholders first; everything else must match byte
// for byte.
//
// go test ./e2e -run TestMCPGolden -update rewrites the goldens.
func TestMCPGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := fixtureServer(t)
	c := startRawMCP(t, e)
	norm := newNormaliser(t, map[string]string{srv.URL: "<TESTPAGES>", e.home: "<LOUPE_HOME>"})

	hs := c.transcript()
	hs.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "loupe-golden", "version": "1"},
	})
	hs.notify("notifications/initialized", nil)
	check(t, "initialize", norm.apply(hs.String()))

	list := c.transcript()
	list.call("tools/list", nil)
	check(t, "tools-list", norm.apply(list.String()))

	nav := c.transcript()
	nav.tool("browser_navigate", map[string]any{"url": srv.Page("dupes.html")})
	check(t, "navigate", norm.apply(nav.String()))

	snap := c.transcript()
	text := snap.tool("browser_snapshot", map[string]any{})
	check(t, "snapshot", norm.apply(snap.String()))

	// The first row's Delete writes its status into an empty paragraph: the
	// report shows the line that appeared.
	del := refAfter(t, text, "Row one", "button", "Delete")
	click := c.transcript()
	click.tool("browser_click", map[string]any{"ref": del})
	check(t, "click", norm.apply(click.String()))

	misspelt := c.transcript()
	misspelt.tool("browser_click", map[string]any{"target": "e1"})
	check(t, "click-misspelt-field", norm.apply(misspelt.String()))

	notFound := c.transcript()
	notFound.tool("browser_click", map[string]any{"ref": "e999"})
	check(t, "click-ref-not-found", norm.apply(notFound.String()))

	// After a navigation the old page's refs are stale, never a guess.
	stale := c.transcript()
	stale.tool("browser_navigate", map[string]any{"url": srv.Page("modal.html"), "snapshot": false})
	stale.tool("browser_click", map[string]any{"ref": del})
	check(t, "click-stale-ref", norm.apply(stale.String()))
}

// TestMCPGoldenRemote pins the wire a remote agent sees through the
// broker (loupe mcp --broker URL on its own machine): the tool list, cut
// to what the broker offers; a navigation with its snapshot and a click
// with its write report, as the local server gives them; a tool the
// broker does not offer; and a tab that is not the remote session's
// (the person's own), refused NO_GRANT, not executed.
func TestMCPGoldenRemote(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the browser's machine
	srv := fixtureServer(t)
	e.ok("open", srv.Page("basic.html")) // the person's own tab, s1
	var served struct{ URL string }
	e.okJSON(&served, "broker", "serve")
	var reg struct{ Token string }
	e.okJSON(&reg, "broker", "register", "--host", "golden")
	remote := newEnv(t)
	remote.extra = append(remote.extra, "LOUPE_BROKER_TOKEN="+reg.Token)
	c := startRawMCP(t, remote, "--broker", served.URL, "--session", "ws1")
	norm := newNormaliser(t, map[string]string{srv.URL: "<TESTPAGES>", e.home: "<LOUPE_HOME>", remote.home: "<REMOTE_HOME>", served.URL: "<BROKER>"})

	hs := c.transcript()
	hs.call("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "loupe-golden", "version": "1"},
	})
	hs.notify("notifications/initialized", nil)
	list := c.transcript()
	list.call("tools/list", nil)
	check(t, "remote-tools-list", norm.apply(list.String()))

	nav := c.transcript()
	text := nav.tool("browser_navigate", map[string]any{"url": srv.Page("dupes.html")})
	check(t, "remote-navigate", norm.apply(nav.String()))

	del := refAfter(t, text, "Row one", "button", "Delete")
	click := c.transcript()
	click.tool("browser_click", map[string]any{"ref": del})
	check(t, "remote-click", norm.apply(click.String()))

	withheld := c.transcript()
	withheld.tool("browser_console", map[string]any{})
	check(t, "remote-not-offered", norm.apply(withheld.String()))

	theirs := c.transcript()
	theirs.tool("browser_tabs", map[string]any{"action": "select", "surface_id": "s1"})
	check(t, "remote-not-its-tab", norm.apply(theirs.String()))
}

// fixtureServer serves the fixture pages on 127.0.0.1 from a port of five
// digits (the usual ephemeral range), so the counts that include the
// origin (a snapshot's chars and tokens, _meta's estimated tokens) are the
// same in every run and stay in the goldens.
func fixtureServer(t *testing.T) *testpages.Server {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if p := ln.Addr().(*net.TCPAddr).Port; p < 10000 {
			ln.Close()
			continue
		}
		s := httptest.NewUnstartedServer(testpages.Handler())
		s.Listener = ln
		s.Start()
		t.Cleanup(s.Close)
		return &testpages.Server{Server: s}
	}
	t.Fatal("no five-digit port on 127.0.0.1 in 20 tries")
	return nil
}

// rawMCP is `loupe mcp` on the other end of two pipes: one JSON-RPC
// message a line each way, as the MCP stdio transport frames them.
type rawMCP struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	nextID int
}

func startRawMCP(t *testing.T, e *env, args ...string) *rawMCP {
	t.Helper()
	cmd := e.command(append([]string{"mcp"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &rawMCP{t: t, stdin: stdin, lines: make(chan []byte, 16), stderr: &bytes.Buffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			c.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		// End of input ends a stdio server, and with it its browser.
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("loupe mcp: %v\nstderr: %s", err, c.stderr)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Errorf("loupe mcp did not exit when its input closed\nstderr: %s", c.stderr)
		}
	})
	return c
}

// transcript is one golden file's exchanges.
type transcript struct {
	c *rawMCP
	b strings.Builder
}

func (c *rawMCP) transcript() *transcript { return &transcript{c: c} }

func (tr *transcript) String() string { return tr.b.String() }

// send writes a message and records it.
func (tr *transcript) send(msg map[string]any) {
	tr.c.t.Helper()
	line, err := json.Marshal(msg)
	if err != nil {
		tr.c.t.Fatal(err)
	}
	if _, err := tr.c.stdin.Write(append(line, '\n')); err != nil {
		tr.c.t.Fatalf("writing to loupe mcp: %v\nstderr: %s", err, tr.c.stderr)
	}
	tr.record("→", line)
}

// record appends a message, indented, to the transcript.
func (tr *transcript) record(arrow string, line []byte) {
	var b bytes.Buffer
	if err := json.Indent(&b, line, "", "  "); err != nil {
		tr.c.t.Fatalf("not JSON: %v\n%s", err, line)
	}
	fmt.Fprintf(&tr.b, "%s\n%s\n", arrow, b.Bytes())
}

// notify sends a notification, which has no reply.
func (tr *transcript) notify(method string, params any) {
	tr.c.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	tr.send(msg)
}

// call sends a request and records every message up to its reply (a
// notification the server sends meanwhile is part of the wire too).
func (tr *transcript) call(method string, params any) map[string]any {
	tr.c.t.Helper()
	tr.c.nextID++
	id := tr.c.nextID
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	tr.send(msg)
	timeout := time.After(90 * time.Second)
	for {
		select {
		case line, ok := <-tr.c.lines:
			if !ok {
				tr.c.t.Fatalf("loupe mcp closed its output before answering %s\nstderr: %s", method, tr.c.stderr)
			}
			tr.record("←", line)
			var reply map[string]any
			if err := json.Unmarshal(line, &reply); err != nil {
				tr.c.t.Fatalf("reply to %s is not JSON: %v", method, err)
			}
			if n, ok := reply["id"].(float64); ok && int(n) == id {
				if reply["error"] != nil {
					tr.c.t.Fatalf("%s: protocol error %v", method, reply["error"])
				}
				checkTokens(tr.c.t, method, reply)
				if method == "tools/call" {
					// The same text, unescaped, for a reviewer's eyes.
					fmt.Fprintf(&tr.b, "# the reply's text content, unescaped:\n%s\n", resultText(reply))
				}
				return reply
			}
		case <-timeout:
			tr.c.t.Fatalf("no reply to %s\nstderr: %s", method, tr.c.stderr)
		}
	}
}

// tool calls a tool and returns the text of its result.
func (tr *transcript) tool(name string, args map[string]any) string {
	tr.c.t.Helper()
	reply := tr.call("tools/call", map[string]any{"name": name, "arguments": args})
	return resultText(reply)
}

// resultText joins the text blocks of a tool result.
func resultText(reply map[string]any) string {
	res, _ := reply["result"].(map[string]any)
	content, _ := res["content"].([]any)
	var b strings.Builder
	for _, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// checkTokens checks a tool result's estimated tokens against its text
// (characters over four, rounded up), and that it says how long it took.
func checkTokens(t *testing.T, method string, reply map[string]any) {
	t.Helper()
	res, _ := reply["result"].(map[string]any)
	meta, _ := res["_meta"].(map[string]any)
	if method != "tools/call" {
		return
	}
	got, ok := meta["loupe/estimatedTokens"].(float64)
	if want := (len(resultText(reply)) + 3) / 4; !ok || int(got) != want {
		t.Errorf("_meta loupe/estimatedTokens is %v, want %d (its text's characters over four)", meta["loupe/estimatedTokens"], want)
	}
	if _, ok := meta["loupe/elapsedMs"].(float64); !ok {
		t.Errorf("_meta lacks loupe/elapsedMs: %v", meta)
	}
}

// normaliser replaces what varies between runs by named placeholders, in
// order: literal values of this run (the fixture origin, LOUPE_HOME), then
// patterns.
type normaliser struct {
	literals []string // old, new pairs
	patterns []pattern
}

type pattern struct {
	re   *regexp.Regexp
	with string
}

func newNormaliser(t *testing.T, literals map[string]string) *normaliser {
	n := &normaliser{patterns: []pattern{
		// The time a call took.
		{regexp.MustCompile(`"loupe/elapsedMs": -?[0-9.]+(e[-+]?[0-9]+)?`), `"loupe/elapsedMs": "<ELAPSED_MS>"`},
		// Where a click landed depends on the fonts installed, not on
		// loupe.
		{regexp.MustCompile(`"(x|y)": -?[0-9.]+(e[-+]?[0-9]+)?(,?)\n`), `"$1": "<LAYOUT_COORDINATE>"$3` + "\n"},
		// Timings in messages ("after 3ms", "after 1.2s").
		{regexp.MustCompile(`\bafter [0-9]+(\.[0-9]+)?(ns|µs|ms|s)\b`), `after <DURATION>`},
		// A write's operation id is new each time (96 random bits).
		{regexp.MustCompile(`\bop-[0-9a-f]{24}\b`), `<OPERATION_ID>`},
		// A document token is the page's loader id, new for each load.
		{regexp.MustCompile(`\bd-[0-9A-Fa-f]{16,}\b`), `<DOCUMENT_TOKEN>`},
	}}
	for old, with := range literals {
		if old == "" {
			t.Fatalf("normaliser: empty value for %s", with)
		}
		n.literals = append(n.literals, old, with)
	}
	return n
}

func (n *normaliser) apply(s string) string {
	s = strings.NewReplacer(n.literals...).Replace(s)
	for _, p := range n.patterns {
		s = p.re.ReplaceAllString(s, p.with)
	}
	return s
}

// check compares a transcript with testdata/mcp/NAME.golden, or rewrites
// the file with -update.
func check(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "mcp", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./e2e -run TestMCPGolden -update to write it)", err)
	}
	if got != string(want) {
		d := textdiff.Lines(string(want), got)
		t.Errorf("%s differs from this run (-golden +run; -update rewrites it):\n%s", path, d.Format(80, 16000))
	}
}
