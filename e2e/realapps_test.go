package e2e

// The real-app corpus: popular widget libraries, installed from npm at
// pinned versions (e2e/realapps/package.json and its lock; `make corpus`),
// served on loopback and driven through `loupe mcp` the way a model drives
// them. The scripted agent reads browser_snapshot text, picks the line
// whose role, name or text a person would look for, and acts on that
// line's [ref=eN] with verbs only (click, type, press, hover, scroll,
// drag, select). browser_eval is used for checks only: each page keeps its
// outcome in window.__result (and shows it in a status line).
//
// Tasks are written as a person would do them, not bent around loupe's
// current limits: a task that fails names the general cause in its error
// (the snapshot lines near what was looked for, or the tool's error).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/testenv"
)

const realappsDir = "realapps"

// realSites serves e2e/realapps on 127.0.0.1 (A) and 127.0.0.2 (B): pages
// under /pages/ (with {{A}} and {{B}} replaced by the two origins), the
// libraries under /node_modules/, and under /api/ the OpenAPI documents
// of the swagger pages and the API they describe.
type realSites struct {
	a, b    string       // origins
	modules http.Handler // the corpus's node_modules (testenv.Corpus)

	mu   sync.Mutex
	hits []string // API requests seen, "GET /api/pets/42" (only the swagger pages call the API)
}

func (s *realSites) page(name string) string { return s.a + "/pages/" + name }

func (s *realSites) apiHits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

func startRealSites(t *testing.T) *realSites {
	t.Helper()
	s := &realSites{modules: http.StripPrefix("/node_modules/", http.FileServer(http.Dir(testenv.Corpus(t, realappsDir))))}
	var lns [2]net.Listener
	for i, host := range []string{"127.0.0.1", "127.0.0.2"} {
		ln, err := net.Listen("tcp", host+":0")
		if err != nil {
			t.Fatalf("listen on %s: %v", host, err)
		}
		lns[i] = ln
	}
	s.a, s.b = "http://"+lns[0].Addr().String(), "http://"+lns[1].Addr().String()
	for _, ln := range lns {
		srv := httptest.NewUnstartedServer(s.handler())
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
	}
	return s
}

func (s *realSites) handler() http.Handler {
	files := http.FileServer(http.Dir(realappsDir))
	mux := http.NewServeMux()
	// The API documents are files of the corpus (pages/openapi*.json,
	// with server URLs relative to this origin), read by the size bench
	// and the fidelity test too.
	for route, file := range map[string]string{"/api/openapi.json": "openapi.json", "/api/big.json": "openapi-big.json", "/api/huge.json": "openapi-huge.json"} {
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			http.ServeFile(w, r, filepath.Join(realappsDir, "pages", file))
		})
	}
	mux.HandleFunc("/api/big/{res}/{id}/report", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": r.PathValue("res"), "id": r.PathValue("id"), "report": "all good"})
	})
	pet := func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		id := r.PathValue("petId")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": id, "name": "Pet number " + id, "status": "available"})
	}
	mux.HandleFunc("/api/pets/{petId}", pet)
	mux.HandleFunc("/api/v2/pets/{petId}", pet)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		clean := path.Clean(r.URL.Path)
		if !strings.HasPrefix(clean, "/pages/") && !strings.HasPrefix(clean, "/node_modules/") {
			http.NotFound(w, r)
			return
		}
		if strings.HasPrefix(clean, "/node_modules/") {
			// Each task loads its page afresh, but its libraries from the
			// browser's cache: compiling the same megabytes of JavaScript
			// for every task was a sixth of the corpus's CPU. (net/http
			// drops the header from a 404: each task still asks for, and
			// is told of, a missing file.)
			w.Header().Set("Cache-Control", "max-age=3600")
			s.modules.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if !strings.HasSuffix(clean, ".html") {
			files.ServeHTTP(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(realappsDir, filepath.FromSlash(clean)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		b = bytes.ReplaceAll(b, []byte("{{A}}"), []byte(s.a))
		b = bytes.ReplaceAll(b, []byte("{{B}}"), []byte(s.b))
		w.Header().Set("Content-Type", mime.TypeByExtension(".html"))
		w.Write(b)
	})
	return mux
}

// realAgent is the scripted agent of one library: one `loupe mcp
// --allow-eval` and the sites. Each task runs as a subtest with its own t.
type realAgent struct {
	t     *testing.T
	ctx   context.Context
	cs    *mcp.ClientSession
	sites *realSites
	files string    // the session's files directory (browser_upload names files in it)
	steps *[]string // this task's tool calls, printed when it fails
	tasks []realTask
}

type realTask struct {
	name string
	f    func(a *realAgent)
}

// startRealAgent starts one MCP server (its own LOUPE_HOME, so its own
// browser) for one library's tasks.
func startRealAgent(t *testing.T, sites *realSites) *realAgent {
	t.Helper()
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-realapps", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: e.command("mcp", "--allow-eval")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &realAgent{t: t, ctx: ctx, cs: cs, sites: sites, files: filepath.Join(e.home, "mcp", "sessions", "mcp", "files")} // loupe mcp's session is "mcp", apart from the daemon's
}

// task adds a task of the library; runTasks runs them in order.
func (a *realAgent) task(name string, f func(a *realAgent)) {
	a.tasks = append(a.tasks, realTask{name, f})
}

// runTasks runs each task as a subtest with the agent bound to its t. A
// task that ends well is checked with sameAsFresh (exhaustive: three
// snapshots, two of them fresh walks of every document): after every
// task under make test-long, or by default after the library's last one only, so that every
// library is still checked.
func (a *realAgent) runTasks() {
	for i, task := range a.tasks {
		a.t.Run(task.name, func(t *testing.T) {
			var steps []string
			ta := &realAgent{t: t, ctx: a.ctx, cs: a.cs, sites: a.sites, files: a.files, steps: &steps}
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("the task's tool calls:\n%s", strings.Join(steps, "\n"))
				}
				ta.steps = nil
				ta.offLoopback()
			})
			task.f(ta)
			if !t.Failed() && (testenv.Long() || i == len(a.tasks)-1) {
				ta.sameAsFresh()
			}
		})
	}
}

// sameAsFresh checks, where a task ends, that the snapshot made from what
// the page agents kept over the task's actions is the one a fresh walk of
// every document gives. The kept one is taken between two fresh ones: a
// page that changes by itself meanwhile (a clock, rows moved when an
// animation ends) shows as two fresh walks that differ, and is not judged.
func (a *realAgent) sameAsFresh() {
	a.t.Helper()
	fresh := a.do("browser_snapshot", map[string]any{"no_cache": true})
	kept := a.do("browser_snapshot", nil)
	again := a.do("browser_snapshot", map[string]any{"no_cache": true})
	if again != fresh {
		a.t.Logf("the page changes by itself; the kept snapshot is not compared")
		return
	}
	if kept != fresh {
		a.t.Fatalf("at the end of the task, the snapshot from the kept walks differs from a fresh one\nkept:\n%s\nfresh:\n%s", clip(kept), clip(fresh))
	}
}

func (a *realAgent) call(name string, args map[string]any) toolResult {
	a.t.Helper()
	r, err := a.cs.CallTool(a.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if a.steps != nil && name != "browser_snapshot" && name != "browser_eval" {
		args, _ := json.Marshal(args)
		out := b.String()
		if len(out) > 600 {
			out = out[:600] + "…"
		}
		*a.steps = append(*a.steps, fmt.Sprintf("%s %s -> %s", name, args, strings.ReplaceAll(out, "\n", "\n    ")))
	}
	return toolResult{text: b.String(), isErr: r.IsError, res: r}
}

// do calls a tool that must succeed; a tool error ends the task with the
// error's text (code, message, hint).
func (a *realAgent) do(name string, args map[string]any) string {
	a.t.Helper()
	r := a.call(name, args)
	if r.isErr {
		a.t.Fatalf("%s %v failed:\n%s", name, args, r.text)
	}
	return r.text
}

// open navigates to a corpus page, waits for ready (text the page shows
// once its widget is up) and returns a fresh snapshot.
func (a *realAgent) open(page, ready string) string {
	a.t.Helper()
	a.do("browser_navigate", map[string]any{"url": a.sites.page(page), "snapshot": false})
	// A page's libraries load and start in a second or two; the bound
	// leaves room for a machine loaded by the tests running in parallel.
	if r := a.call("browser_wait", map[string]any{"text": ready, "timeout_ms": 20000}); r.isErr {
		a.t.Fatalf("%s did not show %q: %s\nsnapshot:\n%s", page, ready, r.text, clip(a.snapshot()))
	}
	return a.snapshot()
}

func (a *realAgent) snapshot() string {
	a.t.Helper()
	return a.do("browser_snapshot", nil)
}

// logSize logs the size of one unbounded snapshot of the current page.
func (a *realAgent) logSize(page string) {
	a.t.Helper()
	full := a.do("browser_snapshot", map[string]any{"max_chars": 50000000})
	a.t.Logf("corpus snapshot size: %s: %d characters", page, len(full))
}

var refRE = regexp.MustCompile(`\[ref=(e\d+)\]`)

// find returns the ref of the first snapshot line that matches pattern (a
// regexp) and has a ref, as a model would pick it. When no such line has
// a ref, the task fails with the lines that matched without one, or with
// the snapshot when nothing matched at all.
func (a *realAgent) find(snap, pattern string) string {
	a.t.Helper()
	re := regexp.MustCompile(pattern)
	lines := strings.Split(snap, "\n")
	var refless []string
	for i, l := range lines {
		if !re.MatchString(l) {
			continue
		}
		if m := refRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
		refless = append(refless, fmt.Sprintf("%d: %s", i+1, l))
	}
	if len(refless) > 0 {
		a.t.Fatalf("lines match %q but have no ref:\n%s\n\nsnapshot (%d chars):\n%s", pattern, strings.Join(refless, "\n"), len(snap), clip(snap))
	}
	a.t.Fatalf("no snapshot line matches %q; snapshot (%d chars):\n%s", pattern, len(snap), clip(snap))
	return ""
}

// await is find on fresh snapshots: widgets that open a list or a dialog
// after the click (a timer, a transition) show it a little later, and an
// agent that does not see it yet looks again. It polls every 100 ms for
// up to 10 s (a loaded machine slows the widgets' timers), and logs when
// the first snapshot did not have it yet.
func (a *realAgent) await(pattern string) string {
	a.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(10 * time.Second)
	for n := 1; ; n++ {
		snap := a.snapshot()
		for _, l := range strings.Split(snap, "\n") {
			if m := refRE.FindStringSubmatch(l); m != nil && re.MatchString(l) {
				if n > 1 {
					a.t.Logf("note: %q had a ref only in snapshot %d after the action", pattern, n)
				}
				return m[1]
			}
		}
		if time.Now().After(deadline) {
			return a.find(snap, pattern) // fails with the snapshot
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findIn is find within a container: for the lines matching anchor in
// order, the nearest of their ancestors matching container whose subtree
// (that line and the lines indented under it) has a line matching
// pattern with a ref; as a model picks the checkbox in the row that shows
// "Product 3", or the switch beside the text "Dark mode".
func (a *realAgent) findIn(snap, container, anchor, pattern string) string {
	a.t.Helper()
	ref, anchors := lookIn(snap, container, anchor, pattern)
	switch {
	case ref != "":
		return ref
	case anchors == nil:
		a.t.Fatalf("no snapshot line matches %q; snapshot (%d chars):\n%s", anchor, len(snap), clip(snap))
	default:
		a.t.Fatalf("no line matching %q with a ref around the lines matching %q:\n%s\n\nsnapshot:\n%s", pattern, anchor, strings.Join(anchors, "\n"), clip(snap))
	}
	return ""
}

// awaitIn is findIn on new snapshots until one has the line: for what a
// page draws a moment after it says it is ready (an editor's gutter
// markers, drawn at its next frame), as a model takes another snapshot.
// Bounded: 10 s, a snapshot every 100 ms.
func (a *realAgent) awaitIn(container, anchor, pattern string) string {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n := 1; ; n++ {
		snap := a.snapshot()
		if ref, _ := lookIn(snap, container, anchor, pattern); ref != "" {
			if n > 1 {
				a.t.Logf("note: %q had a ref around %q only in snapshot %d", pattern, anchor, n)
			}
			return ref
		}
		if time.Now().After(deadline) {
			return a.findIn(snap, container, anchor, pattern) // fails with the snapshot
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lookIn is findIn's search: the ref found ("" for none) and the lines
// that matched anchor.
func lookIn(snap, container, anchor, pattern string) (string, []string) {
	anchorRE, containerRE, re := regexp.MustCompile(anchor), regexp.MustCompile(container), regexp.MustCompile(pattern)
	lines := strings.Split(snap, "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var anchors []string
	for i, l := range lines {
		if !anchorRE.MatchString(l) {
			continue
		}
		anchors = append(anchors, fmt.Sprintf("%d: %s", i+1, l))
		depth := indent(l) + 1
		for c := i; c >= 0; c-- {
			if indent(lines[c]) >= depth {
				continue
			}
			depth = indent(lines[c])
			if !containerRE.MatchString(lines[c]) {
				continue
			}
			for j := c; j < len(lines) && (j == c || indent(lines[j]) > depth); j++ {
				if m := refRE.FindStringSubmatch(lines[j]); m != nil && re.MatchString(lines[j]) {
					return m[1], anchors
				}
			}
		}
	}
	return "", anchors
}

// control returns the ref of the control with this role and name; when
// none is named so, the one of that role beside the text (as a model
// picks the checkbox in the label that reads "Send me the newsletter"),
// with a note in the log that the name was missing.
func (a *realAgent) control(snap, role, name string) string {
	a.t.Helper()
	named := regexp.MustCompile(`- ` + role + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(e\d+)\]`)
	if m := named.FindStringSubmatch(snap); m != nil {
		return m[1]
	}
	a.t.Logf("note: no %s named %q in the snapshot; taking the %s beside that text", role, name, role)
	return a.findIn(snap, `.`, regexp.QuoteMeta(name), `- `+role+`\b`)
}

// clip keeps a failure message readable: a snapshot's first 120 lines
// and its last 5 (where a truncation is stated).
func clip(snap string) string {
	lines := strings.Split(snap, "\n")
	if len(lines) > 125 {
		return strings.Join(lines[:120], "\n") + fmt.Sprintf("\n… (%d lines left out)\n", len(lines)-125) + strings.Join(lines[len(lines)-5:], "\n")
	}
	return snap
}

// click clicks ref. An element in its enter transition (a list or a
// dialog opening) is refused as NOT_ACTIONABLE "not visible" or "keeps
// moving", and one that moved as the press landed (a list re-rendered
// late, as on a loaded machine) as "moved as it was clicked", the press
// stopped before the page saw it; each hint says to wait: the agent
// waits for it to be visible and clicks again, for up to 5 s
// (transitions end by themselves, later on a loaded machine), and the
// test logs that it had to. Other refusals end the task.
func (a *realAgent) click(ref string) string {
	a.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := a.call("browser_click", map[string]any{"ref": ref})
		if !r.isErr && strings.Contains(r.text, "so no click reached") {
			// The press landed, the widget re-rendered under it (a list
			// still filtering what was typed, an editor redrawing its
			// line) and the release missed: loupe says no click reached
			// the element. A model clicks once more while the element is
			// there; when it is gone (the widget acted on the press), the
			// page check that follows judges.
			a.t.Logf("note: %s", r.text)
			if again := a.call("browser_click", map[string]any{"ref": ref}); !again.isErr {
				return again.text
			}
			return r.text
		}
		if !r.isErr {
			return r.text
		}
		transient := strings.HasPrefix(r.text, "NOT_ACTIONABLE") &&
			(strings.Contains(r.text, "not visible") || strings.Contains(r.text, "keeps moving") ||
				strings.Contains(r.text, "moved as it was clicked") && strings.Contains(r.text, "stopped before the page's handlers saw it"))
		if !transient || time.Now().After(deadline) {
			a.t.Fatalf("browser_click %s failed:\n%s", ref, r.text)
		}
		a.t.Logf("note: click %s: %s\n(waiting for it, as the hint says)", ref, firstLine(r.text))
		a.do("browser_wait", map[string]any{"ref": ref})
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// typeText types into ref, or into the focused element when ref is "".
func (a *realAgent) typeText(ref, text string) string {
	a.t.Helper()
	args := map[string]any{"text": text}
	if ref != "" {
		args["ref"] = ref
	}
	return a.do("browser_type", args)
}

func (a *realAgent) press(keys ...string) string {
	a.t.Helper()
	return a.do("browser_press", map[string]any{"keys": keys})
}

// eval reads page state for a check (never to act); the value is JSON.
func (a *realAgent) eval(expr string) string {
	a.t.Helper()
	r := a.call("browser_eval", map[string]any{"expression": expr})
	if r.isErr {
		a.t.Fatalf("eval %s: %s", expr, r.text)
	}
	b, _ := json.Marshal(r.res.StructuredContent)
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		a.t.Fatalf("eval %s: no value in %s", expr, b)
	}
	return string(out.Value)
}

// expect checks a value the page computed from the agent's input. Widgets
// update after their own animation frames and timers, which send no event
// the test can wait on, so this polls every 100 ms for up to 10 s (a
// loaded machine slows them) before failing with the last value seen.
func (a *realAgent) expect(what, expr string, want any) {
	a.t.Helper()
	wb, _ := json.Marshal(want)
	var wantV any
	json.Unmarshal(wb, &wantV)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got string // the page's JSON.stringify of expr
		json.Unmarshal([]byte(a.eval("JSON.stringify("+expr+")")), &got)
		var gotV any
		if json.Unmarshal([]byte(got), &gotV) == nil && reflect.DeepEqual(gotV, wantV) {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("%s: %s is %s, want %s", what, expr, got, jsonText(want))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jsonText is v as JSON without HTML escaping, for messages.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// offLoopback checks, after each task, that its pages fetched nothing
// off loopback (no CDN, no tiles, no telemetry) and found every file they
// asked for; it clears the session's network log for the next task.
func (a *realAgent) offLoopback() {
	a.t.Helper()
	r := a.call("browser_network", map[string]any{"clear": true})
	if r.isErr {
		a.t.Errorf("browser_network: %s", r.text)
		return
	}
	b, _ := json.Marshal(r.res.StructuredContent)
	var out struct {
		Records []struct {
			Method, URL string
			Status      int
		}
	}
	if err := json.Unmarshal(b, &out); err != nil {
		a.t.Errorf("network records: %v %s", err, b)
	}
	for _, rec := range out.Records {
		u, err := url.Parse(rec.URL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" {
			continue // data:, blob:
		}
		if h := u.Hostname(); h != "127.0.0.1" && h != "127.0.0.2" {
			a.t.Errorf("a request left loopback: %s %s", rec.Method, rec.URL)
		}
		if rec.Status >= 400 && u.Path != "/favicon.ico" {
			a.t.Errorf("the corpus lacks a file: %s %s: %d", rec.Method, rec.URL, rec.Status)
		}
	}
}

// TestRealApps runs the corpus: one MCP server per library, one subtest
// per task. The libraries run in parallel, each with its own browser, and
// a library's tasks in order on its agent. TestRealApps itself is not
// parallel, so that its libraries, the package's longest work, run first
// (while the parallel tests wait for the sequential ones), listed longest
// first: what finishes last is then short.
func TestRealApps(t *testing.T) {
	sites := startRealSites(t)
	for _, lib := range []struct {
		name string
		run  func(*realAgent)
	}{
		{"agGrid", agGridTasks},
		{"swagger", swaggerTasks},
		{"shoelace", shoelaceTasks},
		{"elementPlus", elementPlusTasks},
		{"material", materialTasks},
		{"codemirror", codemirrorTasks},
		{"tomSelect", tomSelectTasks},
		{"flatpickr", flatpickrTasks},
		{"quill", quillTasks},
		{"sortable", sortableTasks},
		{"leaflet", leafletTasks},
		{"fluent", fluentTasks},
		{"choices", choicesTasks},
		{"slimSelect", slimSelectTasks},
		{"ace", aceTasks},
	} {
		t.Run(lib.name, func(t *testing.T) {
			t.Parallel()
			a := startRealAgent(t, sites)
			lib.run(a)
			a.runTasks()
		})
	}
}
