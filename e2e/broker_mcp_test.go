package e2e

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// The agent reaches the broker through a forward, as through ssh -R:
	// a port of its own that the person may later move.
	fwd := startForward(t, strings.TrimPrefix(served.URL, "http://"))
	m := startMCP(t, remote, "--broker", fwd.url(), "--session", "ws1")

	tools, err := m.cs.ListTools(m.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "browser_click") || !slices.Contains(names, "browser_record") || !slices.Contains(names, "browser_upload") || !slices.Contains(names, "browser_download") || slices.Contains(names, "browser_console") {
		t.Fatalf("the remote server's tools: %v", names)
	}
	if r := m.call("browser_console", map[string]any{}); !r.isErr || !strings.Contains(r.text, "TRANSPORT_UNSUPPORTED") {
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

	// An upload names a file of the agent's own machine (its relay
	// directory); it is staged to the browser's machine in the request.
	if err := os.WriteFile(filepath.Join(relay, "note.txt"), []byte("from afar"), 0o600); err != nil {
		t.Fatal(err)
	}
	snap = m.ok("browser_navigate", map[string]any{"url": srv.Page("frames/child.html?label=remote")})
	input := regexp.MustCompile(`"Attachment" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if input == nil {
		t.Fatalf("no file input in:\n%s", snap)
	}
	m.ok("browser_upload", map[string]any{"ref": input[1], "files": []string{"note.txt"}})
	m.ok("browser_wait", map[string]any{"text": "file:remote:note.txt:from afar"})
	if r := m.call("browser_upload", map[string]any{"ref": input[1], "files": []string{"../../etc/passwd"}}); !r.isErr || !strings.Contains(r.text, "BAD_INPUT") {
		t.Fatalf("an upload of a file outside the agent's files: %s", r.text)
	}
	// The browser's machine kept the staged file in the remote session's
	// own files, apart from the person's.
	if m, _ := filepath.Glob(filepath.Join(e.home, "sessions", "default", "files", "remote", "*", "uploads", "*", "note.txt")); len(m) != 1 {
		t.Errorf("the staged upload on the browser's machine: %v", m)
	}

	// A recording made there is fetched back once it is kept.
	m.ok("browser_record", map[string]any{"action": "start"})
	eventually(t, "the recording's first frames", func() bool {
		return !strings.Contains(m.ok("browser_record", map[string]any{"action": "status"}), " 0 frames")
	})
	rec := m.ok("browser_record", map[string]any{"action": "stop"})
	video := regexp.MustCompile(regexp.QuoteMeta(relay) + `/[^\n"]+\.webm`).FindString(rec)
	if video == "" {
		t.Fatalf("the recording's path is not in the relay directory %s:\n%s", relay, rec)
	}
	if st, err := os.Stat(video); err != nil || st.Size() == 0 {
		t.Fatalf("the relayed recording %s: %v", video, err)
	}
	if again := m.ok("browser_record", map[string]any{"action": "status"}); !strings.Contains(again, video) {
		t.Errorf("the status after the stop names another file (fetched twice?):\n%s", again)
	}

	// Downloads: the person's own is not the remote session's to see or
	// wait for; the remote's is fetched back into its relay directory.
	e.ok("tab", "new", srv.Page("download.html"))
	e.ok("click", `role=link[name="Download report"]`)
	eventually(t, "the person's download", func() bool { return strings.Contains(e.ok("downloads"), "completed report.txt") })
	snap = m.ok("browser_navigate", map[string]any{"url": srv.Page("download.html")})
	m.ok("browser_click", map[string]any{"ref": refAfter(t, snap, "Downloads", "link", "Download report")})
	dl := m.ok("browser_download", map[string]any{"wait": true})
	got := regexp.MustCompile(regexp.QuoteMeta(relay) + `/[^\n"]*report[^\n"]*\.txt`).FindString(dl)
	if got == "" {
		t.Fatalf("the remote download's path is not in the relay directory %s:\n%s", relay, dl)
	}
	if b, err := os.ReadFile(got); err != nil || !strings.Contains(string(b), "quarterly report") {
		t.Fatalf("the relayed download %s: %q %v", got, b, err)
	}
	if n := strings.Count(m.ok("browser_download", map[string]any{}), "report.txt"); n != 1 {
		t.Errorf("the remote session's downloads list %d report.txt, want its own one only", n)
	}

	// The ledger: its own writes, not the person's.
	if ops := m.ok("browser_operations", map[string]any{}); !strings.Contains(ops, "click") || strings.Contains(ops, "task cli") {
		t.Errorf("the remote session's ledger:\n%s", ops)
	}

	// The person rotates the forward: the old port goes away. A read
	// fails with a hint naming --reroute; after the reroute, the same
	// running front end works through the new port.
	fwd.stop()
	if r := m.call("browser_snapshot", map[string]any{}); !r.isErr || !strings.Contains(r.text, "--reroute") {
		t.Fatalf("a read while the forward is down: %s", r.text)
	}
	moved := startForward(t, strings.TrimPrefix(served.URL, "http://"))
	if r := remote.run("mcp", "--broker", "http://203.0.113.9:1", "--session", "ws1", "--reroute"); r.code != 2 {
		t.Fatalf("a reroute to an address that is not loopback: exit %d %s", r.code, r.stderr)
	}
	remote.ok("mcp", "--broker", moved.url(), "--session", "ws1", "--reroute")
	if got := m.ok("browser_snapshot", map[string]any{}); !strings.Contains(got, "download fixture") {
		t.Fatalf("the snapshot after the reroute:\n%s", got)
	}
}

// forward is a TCP forward on loopback, as an SSH reverse forward gives
// the agent's machine: a port of its own, relayed to the broker's.
type forward struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startForward(t *testing.T, target string) *forward {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forward{ln: ln}
	t.Cleanup(f.stop)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			f.mu.Lock()
			f.conns = append(f.conns, in, out)
			f.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return f
}

func (f *forward) url() string { return "http://" + f.ln.Addr().String() }

// stop closes the port and every connection through it, as a forward
// that goes away does.
func (f *forward) stop() {
	f.ln.Close()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
	f.conns = nil
}

// TestRemoteWriteWhenTheBrokerDies: the daemon (and its broker) killed
// while a remote agent's write is under way. The agent is told
// OUTCOME_UNKNOWN with the write's operation id, and nothing sends it
// again; once the person serves the broker again and the front end is
// re-pointed, the agent reads the write back from the ledger as
// unknown — its own operation, visible to it — and the page got no more
// of it.
func TestRemoteWriteWhenTheBrokerDies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, keys := countingPage(t, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)
	var served struct{ URL string }
	e.okJSON(&served, "broker", "serve")
	var reg struct{ Token string }
	e.okJSON(&reg, "broker", "register", "--host", "box")
	var st struct{ PID int }
	e.okJSON(&st, "daemon", "status")

	remote := newEnv(t)
	remote.extra = append(remote.extra, "LOUPE_BROKER_TOKEN="+reg.Token)
	m := startMCP(t, remote, "--broker", served.URL, "--session", "ws1")
	snap := m.ok("browser_navigate", map[string]any{"url": srv.URL + "/"})
	ref := regexp.MustCompile(`textbox "Notes"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if ref == nil {
		t.Fatalf("no Notes box:\n%s", snap)
	}

	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := m.cs.CallTool(m.ctx, &mcp.CallToolParams{Name: "browser_type", Arguments: map[string]any{"ref": ref[1], "text": strings.Repeat("a", 3000)}})
		if err != nil {
			r = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "transport: " + err.Error()}}}
		}
		done <- r
	}()
	eventually(t, "keys reaching the page", func() bool { return keys.Load() >= 20 })
	if err := kill(st.PID); err != nil {
		t.Fatal(err)
	}
	var r *mcp.CallToolResult
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the remote write did not return after the broker's daemon was killed")
	}
	text := ""
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	id := regexp.MustCompile(`operation (op-[0-9a-z-]+)`).FindStringSubmatch(text)
	if !r.IsError || !strings.Contains(text, "OUTCOME_UNKNOWN") || id == nil || !strings.Contains(text, "not sent again") {
		t.Fatalf("the remote write with the broker gone: %s", text)
	}
	e.waitNoProcesses(15 * time.Second)
	sent := settledCount(keys)

	// The person serves the broker again (a new daemon, a new port); the
	// agent's front end is re-pointed and reads its write back.
	var again struct{ URL string }
	e.okJSON(&again, "broker", "serve")
	remote.ok("mcp", "--broker", again.URL, "--session", "ws1", "--reroute")
	op := m.ok("browser_operations", map[string]any{"action": "show", "operation_id": id[1]})
	if !strings.Contains(op, "unknown") || !strings.Contains(op, "type") {
		t.Fatalf("the write read back from the ledger:\n%s", op)
	}
	if n := keys.Load(); n != sent {
		t.Errorf("%d keys reached the page after the broker came back", n-sent)
	}
}
