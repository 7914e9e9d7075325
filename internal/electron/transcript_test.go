package electron

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// transcript is one testdata/*.json file: what a main process's Node
// inspector answers to the two requests Inspect makes.
type transcript struct {
	List          json.RawMessage `json:"list"`
	EvaluateReply json.RawMessage `json:"evaluateReply"`
}

// fakeInspector replays a transcript: GET /json/list, then a websocket at
// the path the list names, answering the first request with the recorded
// reply (its id set to the request's).
type fakeInspector struct {
	srv *httptest.Server
	// before is sent ahead of the reply (events, stray replies).
	before [][]byte
	// hang keeps the reply back until the connection closes.
	hang bool

	mu       sync.Mutex
	requests []map[string]any // what the websocket received
	closed   chan struct{}    // closed when the client has closed the websocket
}

func newFakeInspector(t *testing.T, tr transcript) *fakeInspector {
	t.Helper()
	var list []inspectorTarget
	if err := json.Unmarshal(tr.List, &list); err != nil {
		t.Fatal(err)
	}
	f := &fakeInspector{closed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /json/list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write(tr.List)
	})
	for _, target := range list {
		u, err := url.Parse(target.WS)
		if err != nil || target.WS == "" {
			continue
		}
		mux.HandleFunc("GET "+u.Path, func(w http.ResponseWriter, r *http.Request) {
			f.serveWS(t, w, r, tr.EvaluateReply)
		})
	}
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeInspector) serveWS(t *testing.T, w http.ResponseWriter, r *http.Request, reply json.RawMessage) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		t.Errorf("fake inspector: accept: %v", err)
		return
	}
	defer c.CloseNow()
	defer close(f.closed)
	c.SetReadLimit(maxMessage)
	ctx := r.Context()
	_, msg, err := c.Read(ctx)
	if err != nil {
		t.Errorf("fake inspector: read: %v", err)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(msg, &req); err != nil {
		t.Errorf("fake inspector: request %s: %v", msg, err)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	for _, m := range f.before {
		if err := c.Write(ctx, websocket.MessageText, m); err != nil {
			return
		}
	}
	if !f.hang {
		var out map[string]any
		if err := json.Unmarshal(reply, &out); err != nil {
			t.Errorf("fake inspector: reply: %v", err)
			return
		}
		out["id"] = req["id"]
		b, _ := json.Marshal(out)
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			return
		}
	}
	// Until the client closes: a Read answers its close frame.
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

// host is the fake's host:port: not the 127.0.0.1:9229 its list names, so
// Inspect must keep the caller's host.
func (f *fakeInspector) host() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func (f *fakeInspector) request(t *testing.T) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) != 1 {
		t.Fatalf("fake inspector got %d requests, want 1", len(f.requests))
	}
	return f.requests[0]
}

func loadTranscript(t *testing.T, name string) transcript {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var tr transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tr
}

func TestTranscripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want map[string]Class
		// or an error
		wantIs   error
		wantText string
	}{
		{file: "two_windows.json", want: map[string]Class{
			"6A0F2C1D9B8E47A3B5C4D2E1F0A9B8C7": {Kind: KindWindow},
			"9E8D7C6B5A4F43E2D1C0B9A8F7E6D5C4": {Kind: KindWindow},
		}},
		{file: "webcontents_view.json", want: map[string]Class{
			"1B2C3D4E5F60718293A4B5C6D7E8F901": {Kind: KindWindow},
			"2C3D4E5F60718293A4B5C6D7E8F9011B": {Kind: KindWebContentsView},
			"3D4E5F60718293A4B5C6D7E8F9011B2C": {Kind: KindWebContentsView},
		}},
		{file: "webview.json", want: map[string]Class{
			"4E5F60718293A4B5C6D7E8F9011B2C3D": {Kind: KindWindow},
			"5F60718293A4B5C6D7E8F9011B2C3D4E": {Kind: KindWebview, ParentTargetID: "4E5F60718293A4B5C6D7E8F9011B2C3D"},
			"60718293A4B5C6D7E8F9011B2C3D4E5F": {Kind: KindOther},
			// contents 4 has no target id: absent, so "other" to a caller
		}},
		{file: "no_electron.json", wantIs: ErrNotElectronMain, wantText: "Node process without Electron (process.mainModule.require: Cannot find module 'electron';"},
		{file: "eval_throws.json", wantText: "evaluation failed: Uncaught (in promise) TypeError: Object has been destroyed"},
	}
	for _, tc := range tests {
		t.Run(strings.TrimSuffix(tc.file, ".json"), func(t *testing.T) {
			f := newFakeInspector(t, loadTranscript(t, tc.file))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs, err := Inspect(ctx, "http://"+f.host())

			req := f.request(t)
			if req["method"] != "Runtime.evaluate" {
				t.Errorf("method = %v, want Runtime.evaluate", req["method"])
			}
			params, _ := req["params"].(map[string]any)
			for _, p := range []string{"awaitPromise", "returnByValue", "includeCommandLineAPI", "silent"} {
				if params[p] != true {
					t.Errorf("params.%s = %v, want true", p, params[p])
				}
			}
			if params["expression"] != script {
				t.Errorf("expression is not the embedded inspect.js")
			}

			if tc.want == nil {
				if err == nil {
					t.Fatalf("Inspect = %+v, want an error", cs)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("err = %v, want errors.Is %v", err, tc.wantIs)
				}
				if tc.wantIs == nil {
					var ee *EvalError
					if !errors.As(err, &ee) {
						t.Errorf("err = %T %v, want *EvalError", err, err)
					}
				}
				if !strings.Contains(err.Error(), tc.wantText) {
					t.Errorf("err = %q, want it to contain %q", err, tc.wantText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := Classify(cs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Classify = %v\nwant %v", got, tc.want)
			}
			select {
			case <-f.closed:
			case <-time.After(5 * time.Second):
				t.Error("Inspect left the websocket open")
			}
		})
	}
}

// The contents of webview.json, as Inspect decodes them: every field of
// the script's result reaches Contents.
func TestTranscriptDecoding(t *testing.T) {
	t.Parallel()
	f := newFakeInspector(t, loadTranscript(t, "webview.json"))
	cs, err := Inspect(context.Background(), f.host())
	if err != nil {
		t.Fatal(err)
	}
	want := []Contents{
		{ID: 1, Type: "window", TargetID: "4E5F60718293A4B5C6D7E8F9011B2C3D", OwnWindow: true, URL: "file:///opt/notes/resources/app/browser.html"},
		{ID: 2, Type: "webview", TargetID: "5F60718293A4B5C6D7E8F9011B2C3D4E", HostID: 1, URL: "https://www.example.org/"},
		{ID: 3, Type: "remote", TargetID: "60718293A4B5C6D7E8F9011B2C3D4E5F", DevTools: true, URL: "devtools://devtools/bundled/devtools_app.html?remoteBase=https://chrome-devtools-frontend.appspot.com/"},
		{ID: 4, Type: "webview", HostID: 1, TargetError: "Target.getTargetInfo did not answer within 5000 ms", URL: "https://slow.example.net/"},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("Inspect =\n%+v\nwant\n%+v", cs, want)
	}
}

// Each accepted endpoint form reaches the same inspector.
func TestInspectEndpointForms(t *testing.T) {
	t.Parallel()
	tr := loadTranscript(t, "two_windows.json")
	var list []inspectorTarget
	if err := json.Unmarshal(tr.List, &list); err != nil {
		t.Fatal(err)
	}
	wsPath := strings.TrimPrefix(list[0].WS, "ws://127.0.0.1:9229")
	for _, form := range []func(host string) string{
		func(h string) string { return "http://" + h },
		func(h string) string { return h },
		func(h string) string { return "  http://" + h + "/json/version?x=1 " }, // path and spaces ignored
		func(h string) string { return "ws://" + h + wsPath },
	} {
		f := newFakeInspector(t, tr)
		ep := form(f.host())
		t.Run(ep, func(t *testing.T) {
			cs, err := Inspect(context.Background(), ep)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 2 {
				t.Errorf("got %d contents, want 2", len(cs))
			}
		})
	}
}

func TestInspectBadEndpoint(t *testing.T) {
	t.Parallel()
	for _, ep := range []string{"ftp://127.0.0.1:9229", "http://", ":::"} {
		_, err := Inspect(context.Background(), ep)
		if err == nil || !strings.Contains(err.Error(), "not an inspector endpoint") {
			t.Errorf("Inspect(%q) = %v, want a not-an-endpoint error", ep, err)
		}
	}
}

func TestInspectUnreachable(t *testing.T) {
	t.Parallel()
	// A port that was just free.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Inspect(context.Background(), addr)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if !strings.Contains(err.Error(), "--inspect=") {
		t.Errorf("err = %v, want a hint about --inspect", err)
	}
}

// A renderer's --remote-debugging-port answers /json/list too, with page
// targets: that is not the main process.
func TestInspectRendererEndpoint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[{"description":"","devtoolsFrontendUrl":"/devtools/inspector.html?ws=127.0.0.1:9222/devtools/page/6A0F2C1D9B8E47A3B5C4D2E1F0A9B8C7","id":"6A0F2C1D9B8E47A3B5C4D2E1F0A9B8C7","title":"Notes","type":"page","url":"file:///opt/notes/resources/app/index.html","webSocketDebuggerUrl":"ws://127.0.0.1:9222/devtools/page/6A0F2C1D9B8E47A3B5C4D2E1F0A9B8C7"}]`)
	}))
	defer srv.Close()
	_, err := Inspect(context.Background(), srv.URL)
	if !errors.Is(err, ErrNotElectronMain) || !strings.Contains(err.Error(), "--remote-debugging-port") {
		t.Fatalf("err = %v, want ErrNotElectronMain naming --remote-debugging-port", err)
	}
}

// An HTTP server that is no inspector at all.
func TestInspectNotAnInspector(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := Inspect(context.Background(), srv.URL)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v, want ErrUnreachable with the 404", err)
	}
}

// Events and other ids ahead of the reply are skipped.
func TestInspectSkipsOtherMessages(t *testing.T) {
	t.Parallel()
	f := newFakeInspector(t, loadTranscript(t, "two_windows.json"))
	f.before = [][]byte{
		[]byte(`{"method":"Runtime.consoleAPICalled","params":{"type":"log","args":[],"executionContextId":1,"timestamp":1}}`),
		[]byte(`{"id":7,"result":{}}`),
	}
	cs, err := Inspect(context.Background(), f.host())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Errorf("got %d contents, want 2", len(cs))
	}
}

// A reply far above the websocket library's 32 KiB default read limit.
func TestInspectLargeReply(t *testing.T) {
	t.Parallel()
	tr := loadTranscript(t, "two_windows.json")
	var cs []Contents
	for i := 1; i <= 400; i++ {
		cs = append(cs, Contents{ID: i, Type: "window", TargetID: fmt.Sprintf("%032X", i), OwnWindow: true,
			URL: "https://example.com/" + strings.Repeat("x", 2000)})
	}
	value, _ := json.Marshal(result{ElectronVersion: "33.2.1", ProcessType: "browser", Contents: cs})
	tr.EvaluateReply = []byte(fmt.Sprintf(`{"id":1,"result":{"result":{"type":"object","value":%s}}}`, value))
	if len(tr.EvaluateReply) < 512<<10 {
		t.Fatalf("reply is only %d bytes", len(tr.EvaluateReply))
	}
	f := newFakeInspector(t, tr)
	got, err := Inspect(context.Background(), f.host())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 400 {
		t.Errorf("got %d contents, want 400", len(got))
	}
}

// An inspector that never answers: ctx bounds the wait, and the connection
// is closed.
func TestInspectContextBound(t *testing.T) {
	t.Parallel()
	f := newFakeInspector(t, loadTranscript(t, "two_windows.json"))
	f.hang = true
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Inspect(ctx, f.host())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Inspect took %v after a 300 ms deadline", d)
	}
	select {
	case <-f.closed:
	case <-time.After(5 * time.Second):
		t.Error("Inspect left the websocket open")
	}
}

// A protocol error instead of a result.
func TestInspectProtocolError(t *testing.T) {
	t.Parallel()
	tr := loadTranscript(t, "two_windows.json")
	tr.EvaluateReply = []byte(`{"id":1,"error":{"code":-32601,"message":"'Runtime.evaluate' wasn't found"}}`)
	f := newFakeInspector(t, tr)
	_, err := Inspect(context.Background(), f.host())
	var ee *EvalError
	if !errors.As(err, &ee) || !strings.Contains(ee.Text, "wasn't found") {
		t.Fatalf("err = %v, want *EvalError with the protocol message", err)
	}
}
