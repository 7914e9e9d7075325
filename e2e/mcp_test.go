package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// mcpCaller calls tools on one client session and returns their text.
type mcpCaller struct {
	t   *testing.T
	ctx context.Context
	cs  *mcp.ClientSession
}

type toolResult struct {
	text  string
	isErr bool
	res   *mcp.CallToolResult
}

func (m mcpCaller) call(name string, args map[string]any) toolResult {
	m.t.Helper()
	r, err := m.cs.CallTool(m.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		m.t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if r.IsError && strings.HasPrefix(b.String(), "INTERNAL: ") {
		m.t.Errorf("%s answered INTERNAL (no condition a caller can cause is):\n%s", name, b.String())
	}
	return toolResult{text: b.String(), isErr: r.IsError, res: r}
}

func (m mcpCaller) ok(name string, args map[string]any) string {
	m.t.Helper()
	r := m.call(name, args)
	if r.isErr {
		m.t.Fatalf("%s %v: %s", name, args, r.text)
	}
	return r.text
}

// errorOf decodes a tool error's structured content.
func errorOf(t *testing.T, r toolResult) (code string, notExecuted bool) {
	t.Helper()
	if !r.isErr {
		t.Fatalf("want a tool error, got: %s", r.text)
	}
	b, _ := json.Marshal(r.res.StructuredContent)
	var e struct {
		Error struct {
			Code        string `json:"code"`
			Hint        string `json:"hint"`
			NotExecuted bool   `json:"not_executed"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Code == "" || e.Error.Hint == "" {
		t.Fatalf("tool error without code and hint: %s / %s", b, r.text)
	}
	return e.Error.Code, e.Error.NotExecuted
}

// refAfter returns the ref of the first node with this role and name after
// the line holding anchor.
func refAfter(t *testing.T, snap, anchor, role, name string) string {
	t.Helper()
	i := strings.Index(snap, anchor)
	if i < 0 {
		t.Fatalf("no %q in:\n%s", anchor, snap)
	}
	m := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`"`) + `[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap[i:])
	if m == nil {
		t.Fatalf("no %s %q after %q in:\n%s", role, name, anchor, snap)
	}
	return m[1]
}

// TestMCPStdio drives `loupe mcp` over stdio with the Go SDK's client: the
// tool list, a page with a cross-site (out-of-process) iframe, a click and
// typing inside it with the change reported as a diff, STALE_REF after a
// navigation, BAD_INPUT for malformed calls, and _meta on every result.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := testpages.StartPair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := e.command("mcp", "--allow-eval")
	client := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	m := mcpCaller{t, ctx, cs}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	want := []string{"browser_check", "browser_click", "browser_close", "browser_console", "browser_diagnostics", "browser_dialogs", "browser_doctor",
		"browser_download", "browser_drag", "browser_drop", "browser_eval", "browser_fill", "browser_focus", "browser_hover", "browser_navigate",
		"browser_network", "browser_operations", "browser_pointer", "browser_press", "browser_preview", "browser_query", "browser_read",
		"browser_record", "browser_route", "browser_screenshot", "browser_scroll", "browser_select", "browser_snapshot", "browser_status", "browser_storage_state",
		"browser_surfaces", "browser_switch_surface", "browser_switch_window", "browser_tabs", "browser_type", "browser_upload", "browser_viewport",
		"browser_wait", "browser_windows"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools:\n got %v\nwant %v", names, want)
	}

	nav := m.ok("browser_navigate", map[string]any{"url": a.Page("frames/top.html")})
	if !strings.Contains(nav, "cross idle") || !strings.Contains(nav, "[ref=") {
		t.Fatalf("navigate should return the snapshot with the frames:\n%s", nav)
	}
	snap := m.ok("browser_snapshot", nil)
	goRef := refAfter(t, snap, "cross idle", "button", "Go")
	nameRef := refAfter(t, snap, "cross idle", "textbox", "Name")

	click := m.call("browser_click", map[string]any{"ref": goRef})
	added := regexp.MustCompile(`(?m)^\+ +- paragraph \[ref=e\d+\]: clicked:cross:true$`)
	removed := regexp.MustCompile(`(?m)^- +- paragraph \[ref=e\d+\]: cross idle$`)
	if click.isErr || !added.MatchString(click.text) || !removed.MatchString(click.text) {
		t.Fatalf("click in the OOPIF should report the change as a diff:\n%s", click.text)
	}
	for _, k := range []string{"loupe/estimatedTokens", "loupe/elapsedMs"} {
		if _, ok := click.res.Meta[k]; !ok {
			t.Errorf("_meta lacks %s: %v", k, click.res.Meta)
		}
	}
	typed := m.ok("browser_type", map[string]any{"ref": nameRef, "text": "ada"})
	if !strings.Contains(typed, "typed:cross:ada") {
		t.Fatalf("type in the OOPIF:\n%s", typed)
	}
	full := m.ok("browser_click", map[string]any{"ref": goRef, "snapshot": true})
	if !strings.Contains(full, "- iframe \"cross-site frame\"") {
		t.Errorf("snapshot: true should return the full snapshot:\n%s", full)
	}
	if v := m.ok("browser_eval", map[string]any{"expression": "1 + 2"}); !strings.HasPrefix(v, "3") {
		t.Errorf("eval: %q", v)
	}
	q := m.ok("browser_query", map[string]any{"role": "button", "name": "Go"})
	if !strings.HasPrefix(q, "3 matches (ambiguous") {
		t.Errorf("query: %s", q)
	}

	m.ok("browser_navigate", map[string]any{"url": a.Page("basic.html"), "snapshot": false})
	code, notExec := errorOf(t, m.call("browser_click", map[string]any{"ref": goRef}))
	if code != "STALE_REF" || !notExec {
		t.Errorf("click after navigation: %s not_executed=%v", code, notExec)
	}
	for _, args := range []map[string]any{
		{},                             // ref missing
		{"ref": 12},                    // wrong type
		{"ref": "e1", "bogus": true},   // unknown property
		{"ref": "@x1"},                 // not a ref or locator
		{"ref": "e1", "button": "top"}, // not in the enum
	} {
		code, notExec := errorOf(t, m.call("browser_click", args))
		if code != "BAD_INPUT" || !notExec {
			t.Errorf("click %v: %s not_executed=%v", args, code, notExec)
		}
	}
	if code, _ := errorOf(t, m.call("browser_wait", map[string]any{"text": "x", "timeout_ms": 61000})); code != "BAD_INPUT" {
		t.Errorf("wait over the 60 s cap (the one limit of every front end): %s", code)
	}
	// The default is 3 s. The bound leaves a loaded machine room and is
	// still below an action's 15 s and the 60 s cap.
	start := time.Now()
	if code, _ := errorOf(t, m.call("browser_wait", map[string]any{"text": "never there"})); code != "TIMEOUT" || time.Since(start) > 12*time.Second {
		t.Errorf("default wait: %s after %s", code, time.Since(start))
	}
	shot := m.call("browser_screenshot", nil)
	if shot.isErr || len(shot.res.Content) != 2 {
		t.Fatalf("screenshot: %s", shot.text)
	}
	if img, ok := shot.res.Content[0].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || len(img.Data) < 100 {
		t.Errorf("screenshot image: %#v", shot.res.Content[0])
	}
}

// TestMCPCoreTools checks --tools core serves the small set.
func TestMCPCoreTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command("mcp", "--tools", "core")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tools.Tools)
	if len(tools.Tools) != 12 || slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "browser_eval" }) {
		t.Errorf("core tools: %d", len(tools.Tools))
	}
	t.Logf("core tool list: %d tools, %d characters (~%d tokens)", len(tools.Tools), len(b), len(b)/4)
}

// TestMCPHTTP serves streamable HTTP on loopback: the SDK's client works
// over it with the token the server made (by default), a request without
// the token or with another is refused, and so is one from a foreign
// Origin or Host.
func TestMCPHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m, endpoint, token := startHTTPMCP(t, e)
	ctx := m.ctx
	if nav := m.ok("browser_navigate", map[string]any{"url": srv.Page("dupes.html")}); !strings.Contains(nav, "dupes fixture") {
		t.Fatalf("navigate over HTTP:\n%s", nav)
	}

	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(mod func(*http.Request)) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(func(r *http.Request) {}); c != http.StatusOK {
		t.Fatalf("plain loopback request: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Del("Authorization") }); c != http.StatusUnauthorized {
		t.Errorf("no token: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("x", len(token))) }); c != http.StatusUnauthorized {
		t.Errorf("another token: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }); c != http.StatusForbidden {
		t.Errorf("foreign Origin: %d", c)
	}
	if c := post(func(r *http.Request) { r.Host = "evil.example:80" }); c != http.StatusForbidden {
		t.Errorf("foreign Host (DNS rebinding): %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:5173") }); c != http.StatusOK {
		t.Errorf("loopback Origin: %d", c)
	}
}

// TestMCPDaemonFilesAndCancel: with --daemon the MCP server shares the
// daemon's session with the CLI; a download lands in the session's files
// and can be uploaded by name (paths stay inside that directory); a
// cancelled wait returns at once and leaves the server responsive.
func TestMCPDaemonFilesAndCancel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("download.html"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command("mcp", "--daemon")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	m := mcpCaller{t, ctx, cs}
	snap := m.ok("browser_snapshot", nil)
	if !strings.Contains(snap, "download fixture") {
		t.Fatalf("--daemon should see the page the CLI opened:\n%s", snap)
	}
	link := refAfter(t, snap, "Downloads", "link", "Download report")
	m.ok("browser_click", map[string]any{"ref": link})
	// The download may finish before the wait: it is returned all the same.
	dl := m.ok("browser_download", map[string]any{"wait": true})
	if !strings.Contains(dl, "completed report.txt") {
		t.Fatalf("download: %s", dl)
	}
	if got := e.ok("downloads"); !strings.Contains(got, "report.txt") {
		t.Errorf("the CLI sees the same session's downloads: %q", got)
	}
	nav := m.ok("browser_navigate", map[string]any{"url": srv.Page("frames/child.html?label=up")})
	file := refAfter(t, nav, "up idle", "button", "Attachment")
	m.ok("browser_upload", map[string]any{"ref": file, "files": []string{"downloads/report.txt"}})
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_wait", Arguments: map[string]any{"text": "file:up:report.txt:quarterly report"}}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../../../etc/passwd", "/etc/passwd"} {
		code, notExec := errorOf(t, m.call("browser_upload", map[string]any{"ref": file, "files": []string{bad}}))
		if code != "BAD_INPUT" || !notExec {
			t.Errorf("upload of %s: %s", bad, code)
		}
	}

	// Cancel an 8-second wait after 200 ms: the call ends, and the next
	// one is served before the wait's 8 s are up. (Both bounds are counted
	// from the wait's start, with room for a loaded machine: a server held
	// by the wait would answer only after its 8 s.)
	wctx, wcancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, err = cs.CallTool(wctx, &mcp.CallToolParams{Name: "browser_wait", Arguments: map[string]any{"text": "never", "timeout_ms": 8000}})
	wcancel()
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled wait: err=%v after %s", err, time.Since(start))
	}
	m.ok("browser_tabs", nil)
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("the server was held by the cancelled wait: the next call ended %s after the wait began", d)
	}
}

// TestMCPAttachCDP: `loupe mcp --cdp URL` drives a browser loupe did not
// start, and leaves it running when the server stops.
func TestMCPAttachCDP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	other, endpoint := externalChromium(t)
	httpEndpoint := "http://" + strings.SplitN(strings.TrimPrefix(endpoint, "ws://"), "/", 2)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command("mcp", "--cdp", httpEndpoint)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mcpCaller{t, ctx, cs}
	if nav := m.ok("browser_navigate", map[string]any{"url": srv.Page("dupes.html")}); !strings.Contains(nav, "dupes fixture") {
		t.Fatalf("navigate in the attached browser:\n%s", nav)
	}
	cs.Close()
	cmd.Wait()
	if err := other.Process.Signal(syscall.Signal(0)); err != nil || other.ProcessState != nil {
		t.Fatalf("the attached browser did not survive the MCP server: %v", err)
	}
}

// TestMCPSnapshotBudget: browser_snapshot has a default budget; a cut
// snapshot says so in its text, with the tool calls that get the rest, and
// max_chars raises it. The page is the medium one (about 50,000 chars of
// snapshot, past the default 40,000): the large one's whole snapshot was
// half a million chars to make and move for the same checks.
func TestMCPSnapshotBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	m.ok("browser_navigate", map[string]any{"url": srv.Page("medium.html"), "snapshot": false})
	cut := m.ok("browser_snapshot", nil)
	if len(cut) > 41000 || !regexp.MustCompile(`\[truncated: \d+ of (more than )?\d+ lines shown\]\n\(the rest: browser_snapshot with scope`).MatchString(cut) {
		t.Fatalf("default snapshot of the medium page (%d chars) is not cut with a note:\n%s", len(cut), cut[max(0, len(cut)-400):])
	}
	whole := m.ok("browser_snapshot", map[string]any{"max_chars": 5000000})
	if strings.Contains(whole, "[truncated") || !strings.Contains(whole, "MK-LARGE-BOTTOM-7f3b") {
		t.Fatalf("max_chars did not lift the budget (%d chars)", len(whole))
	}
	if !strings.HasPrefix(whole, cut[:strings.Index(cut, "[truncated")]) {
		t.Fatal("the cut snapshot is not the start of the whole one")
	}
}

// startMCP starts `loupe mcp` with these arguments in the environment's
// LOUPE_HOME and connects a client to it for the rest of the test.
func startMCP(t *testing.T, e *env, args ...string) mcpCaller {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cmd := e.command(append([]string{"mcp"}, args...)...)
	client := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return mcpCaller{t, ctx, cs}
}
