package broker

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/ops"
)

// fakeX records the requests it is given.
type fakeX struct {
	mu    sync.Mutex
	reqs  []executor.Request
	owns  bool
	files string // the root below which each task has its files
}

func (f *fakeX) Do(_ context.Context, req executor.Request) (*executor.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	if req.Op == "click" {
		return nil, apitype.Errorf(apitype.NoGrant, "tab s1: not yours")
	}
	return &executor.Result{Out: map[string]string{"ok": req.Op}, OperationID: "op-1"}, nil
}
func (f *fakeX) Registry() *ops.Registry           { return ops.New() }
func (f *fakeX) OwnsTab(session, task string) bool { return f.owns }
func (f *fakeX) FilesOf(session, task string) filesdir.Dir {
	return executor.ConfinedFiles(filepath.Join(f.files, session), task)
}

func newTestServer(t *testing.T) (*Server, *fakeX, string) {
	t.Helper()
	st, err := OpenStore(filepath.Join(t.TempDir(), StoreFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, _, err := st.Register("h1")
	if err != nil {
		t.Fatal(err)
	}
	x := &fakeX{files: t.TempDir()}
	s := NewServer(Config{X: x, Store: st, Build: "b1"})
	return s, x, tok
}

func call(s *Server, method, path, body string, h map[string]string) (*httptest.ResponseRecorder, apitype.OpResponse) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Host = "127.0.0.1:8766"
	for k, v := range h {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	var resp apitype.OpResponse
	_ = json.Unmarshal(w.Body.Bytes(), &resp)
	return w, resp
}

func TestRouting(t *testing.T) {
	s, x, tok := newTestServer(t)
	auth := map[string]string{"Authorization": "Bearer " + tok, HeaderSession: "a"}

	w, resp := call(s, "POST", "/v1/browser/open", `{"url":"https://example.com"}`, auth)
	if w.Code != 200 || resp.OperationID != "op-1" {
		t.Fatalf("open: %d %s", w.Code, w.Body)
	}
	req := x.reqs[0]
	if req.Session != "default" || req.Task != "remote:h1#1/a" || req.Client != req.Task || !req.Confined {
		t.Fatalf("open request: %+v", req)
	}
	var in map[string]any
	if err := json.Unmarshal(req.Input, &in); err != nil || in["new_tab"] != true {
		t.Fatalf("a session's first open must open a tab of its own: %s", req.Input)
	}
	x.owns = true
	call(s, "POST", "/v1/browser/open", `{"url":"https://example.com"}`, auth)
	if strings.Contains(string(x.reqs[1].Input), "new_tab") {
		t.Fatalf("a later open opened a new tab: %s", x.reqs[1].Input)
	}

	// Another session is another task.
	b := map[string]string{"Authorization": "Bearer " + tok, HeaderSession: "b", HeaderOperationID: "op-x", HeaderReport: "diff"}
	w, resp = call(s, "POST", "/v1/browser/click", `{"target":"e1"}`, b)
	if w.Code != http.StatusForbidden || resp.Error == nil || resp.Error.Code != apitype.NoGrant || !resp.Error.NotExecuted {
		t.Fatalf("click refused: %d %s", w.Code, w.Body)
	}
	if r := x.reqs[2]; r.Task != "remote:h1#1/b" || r.OperationID != "op-x" || r.Report == nil || !r.Report.Diff {
		t.Fatalf("click request: %+v", r)
	}

	n := len(x.reqs)
	for _, c := range []struct {
		name, path string
		h          map[string]string
		status     int
		code       apitype.Code
	}{
		{"no session", "/v1/browser/snapshot", map[string]string{"Authorization": "Bearer " + tok}, 400, apitype.BadInput},
		{"bad session", "/v1/browser/snapshot", map[string]string{"Authorization": "Bearer " + tok, HeaderSession: "../x"}, 400, apitype.BadInput},
		{"no token", "/v1/browser/snapshot", map[string]string{HeaderSession: "a"}, 401, apitype.NoGrant},
		{"wrong token", "/v1/browser/snapshot", map[string]string{"Authorization": "Bearer " + tok + "0", HeaderSession: "a"}, 401, apitype.NoGrant},
		{"not offered", "/v1/browser/takeover", auth, 501, apitype.TransportUnsupported},
		{"unknown", "/v1/browser/teleport", auth, 501, apitype.TransportUnsupported},
		{"eval", "/v1/browser/eval", auth, 501, apitype.TransportUnsupported},
		{"rebinding", "/v1/browser/snapshot", map[string]string{"Authorization": "Bearer " + tok, HeaderSession: "a", "Host": "evil.example:8766"}, 403, apitype.ForeignOrigin},
		{"no port", "/v1/browser/snapshot", map[string]string{"Authorization": "Bearer " + tok, HeaderSession: "a", "Host": "127.0.0.1"}, 403, apitype.ForeignOrigin},
		{"web page", "/v1/browser/snapshot", map[string]string{"Authorization": "Bearer " + tok, HeaderSession: "a", "Origin": "http://127.0.0.1:8766"}, 403, apitype.ForeignOrigin},
	} {
		w, resp := call(s, "POST", c.path, `{}`, c.h)
		if w.Code != c.status || resp.Error == nil || resp.Error.Code != c.code {
			t.Errorf("%s: %d %s, want %d %s", c.name, w.Code, w.Body, c.status, c.code)
		}
	}
	if len(x.reqs) != n {
		t.Fatalf("refused requests reached the executor: %+v", x.reqs[n:])
	}
}

func TestCapabilities(t *testing.T) {
	s, _, tok := newTestServer(t)
	w, _ := call(s, "GET", "/v1/capabilities", "", map[string]string{"Authorization": "Bearer " + tok})
	var c Capabilities
	if err := json.Unmarshal(w.Body.Bytes(), &c); err != nil || w.Code != 200 {
		t.Fatalf("capabilities: %d %s", w.Code, w.Body)
	}
	names := map[string]bool{}
	for _, o := range c.Operations {
		names[o.Name] = true
	}
	for _, want := range []string{"open", "snapshot", "click", "tab.new", "tab.close", "tabs", "upload", "drop", "record", "downloads", "ops", "ops.show"} {
		if !names[want] {
			t.Errorf("%s not offered", want)
		}
	}
	for _, not := range []string{"takeover", "resume", "import-cookies", "dashboard", "attach", "eval", "broker.register", "state.save", "console"} {
		if names[not] {
			t.Errorf("%s offered", not)
		}
	}
	if c.Version != Version || c.SessionHeader != HeaderSession {
		t.Errorf("capabilities: %+v", c)
	}
	if w, _ := call(s, "GET", "/v1/capabilities", "", nil); w.Code != 401 {
		t.Errorf("capabilities without a token: %d", w.Code)
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "[::1]:8766": true, "localhost:1": true, "0.0.0.0:8766": false, "192.168.1.2:80": false, "example.com:80": false, "127.0.0.1": false} {
		if err := CheckAddr(addr); (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v", addr, err)
		}
	}
}

func TestHostTasks(t *testing.T) {
	old := HostTasks("h1", 3)
	for task, want := range map[string]bool{"remote:h1#1/a": true, "remote:h1#2/b": true, "remote:h1#3/a": false, "remote:h10#1/a": false, "cli": false, "remote:h2#1/a": false} {
		if old(task) != want {
			t.Errorf("HostTasks(h1, 3)(%q) = %v", task, !want)
		}
	}
	if HostTasks("h1", 4)("remote:h1#4/a") {
		t.Error("a revocation of generation 3 must not end generation 4")
	}
}

// TestFiles: a remote session reads back files of its own directory, and
// nothing else: not another session's, not the person's, not through a
// symlink or by climbing out; and only with a current token.
func TestFiles(t *testing.T) {
	s, x, tok := newTestServer(t)
	own := string(x.FilesOf("default", Task("h1", 1, "a")))
	other := string(x.FilesOf("default", Task("h1", 1, "b")))
	for dir, content := range map[string]string{own: "mine", other: "theirs", filepath.Join(x.files, "default"): "person's"} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "rec.webm"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(other, "rec.webm"), filepath.Join(own, "link.webm")); err != nil {
		t.Fatal(err)
	}
	auth := func(session string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + tok, HeaderSession: session}
	}
	for _, tc := range []struct {
		name, path string
		h          map[string]string
		code       int
		body       string
	}{
		{"its own file", "/v1/files/rec.webm", auth("a"), 200, "mine"},
		{"the other session's own", "/v1/files/rec.webm", auth("b"), 200, "theirs"},
		{"climbing out (the path is cleaned: a redirect to /v1/rec.webm)", "/v1/files/../rec.webm", auth("a"), 307, ""},
		{"escaped climb", "/v1/files/..%2F..%2Frec.webm", auth("a"), 404, ""},
		{"through a symlink", "/v1/files/link.webm", auth("a"), 404, ""},
		{"missing", "/v1/files/none.webm", auth("a"), 404, ""},
		{"no session", "/v1/files/rec.webm", map[string]string{"Authorization": "Bearer " + tok}, 400, ""},
		{"no token", "/v1/files/rec.webm", map[string]string{HeaderSession: "a"}, 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "http://127.0.0.1:8766"+tc.path, nil)
			r.Host = "127.0.0.1:8766"
			for k, v := range tc.h {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if tc.body != "" && w.Body.String() != tc.body {
				t.Fatalf("body %q, want %q", w.Body, tc.body)
			}
			if tc.code != 200 && strings.Contains(w.Body.String(), "theirs") {
				t.Fatalf("a refusal showed another's file: %s", w.Body)
			}
		})
	}
}
