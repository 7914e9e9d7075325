package localapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/localapi/lapitest"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Fake operations: none needs a browser, and the executor is given a
// Chromium that does not exist, so one that tried to start a browser
// would fail with BROWSER_START_FAILED instead of launching one.

type echoIn struct {
	Text string `json:"text"`
	N    int    `json:"n,omitempty"`
}

type echoOut struct {
	Text    string `json:"text"`
	N       int    `json:"n"`
	Session string `json:"session"`
}

type writeIn struct {
	Value string `json:"value"`
}

type writeOut struct {
	Wrote string `json:"wrote"`
}

// needIn has a rule beyond its types: ref is required.
type needIn struct {
	Ref string `json:"ref"`
}

func (in *needIn) Validate() error {
	if in.Ref == "" {
		return apitype.Errorf(apitype.BadInput, "%s is required", apitype.Field("ref"))
	}
	return nil
}

type surfaceIn struct {
	Surface string `json:"surface"`
}

type surfaceOut struct {
	Current string `json:"current"`
}

type none struct{}

// fakes is a registry of fake operations and a count of the handler
// calls, so a test can tell that nothing ran.
type fakes struct {
	ran      atomic.Int64
	reg      *ops.Registry
	handlers map[string]handlers.Handler
}

// def defines a fake operation whose calls are counted. Every fake is
// NoBrowser: the executor must not start a browser for it.
func def[In, Out any](f *fakes, name string, kind ops.Kind, run func(ctx context.Context, d *handlers.Deps, in *In) (*Out, error)) *ops.Op {
	o := ops.Describe[In, Out](name, "fake "+name, kind, 5*time.Second)
	o.NoBrowser = true
	f.handlers[name] = handlers.Func(func(ctx context.Context, d *handlers.Deps, in *In) (*Out, error) {
		f.ran.Add(1)
		return run(ctx, d, in)
	})
	return o
}

func newFakes() *fakes {
	f := &fakes{handlers: map[string]handlers.Handler{}}
	block := func(ctx context.Context, _ *handlers.Deps, _ *none) (*none, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	use := def(f, "use", ops.Write, func(_ context.Context, env *handlers.Deps, in *surfaceIn) (*surfaceOut, error) {
		env.Caller.SetCurrent(in.Surface)
		return &surfaceOut{Current: env.Caller.Current()}, nil
	})
	use.Action = ops.ActTarget
	f.reg = ops.NewRegistry(
		def(f, "echo", ops.Read, func(_ context.Context, env *handlers.Deps, in *echoIn) (*echoOut, error) {
			return &echoOut{Text: in.Text, N: in.N, Session: env.Session}, nil
		}),
		def(f, "fake write", ops.Write, func(_ context.Context, _ *handlers.Deps, in *writeIn) (*writeOut, error) {
			return &writeOut{Wrote: in.Value}, nil
		}),
		def(f, "need", ops.Read, func(_ context.Context, _ *handlers.Deps, in *needIn) (*none, error) {
			return &none{}, nil
		}),
		// fail refuses with recovery data, certainly before any effect.
		def(f, "fail", ops.Write, func(_ context.Context, _ *handlers.Deps, _ *none) (*none, error) {
			e := apitype.Errorf(apitype.SurfaceNotFound, "no surface %q", "s9")
			e.SurfaceID = "s9"
			e.Candidates = []string{"s1", "s2"}
			return nil, e.Fix("list the surfaces ({1}) and pick one", apitype.Step{Op: "surfaces", Args: map[string]string{"all": "true"}})
		}),
		// fail late fails after its input was sent.
		def(f, "fail late", ops.Write, func(_ context.Context, _ *handlers.Deps, _ *none) (*none, error) {
			return nil, apitype.Errorf(apitype.NotActionable, "the element moved during the click").Executed()
		}),
		def(f, "fail read", ops.Read, func(_ context.Context, _ *handlers.Deps, _ *none) (*none, error) {
			return nil, apitype.Errorf(apitype.NotActionable, "gone").Executed()
		}),
		def(f, "block", ops.Write, block),
		def(f, "block read", ops.Read, block),
		use,
		def(f, "current", ops.Read, func(_ context.Context, env *handlers.Deps, _ *none) (*surfaceOut, error) {
			return &surfaceOut{Current: env.Caller.Current()}, nil
		}),
	)
	return f
}

// start serves the fakes on a local API for this test. The test fails if
// any session ended up with a browser.
func start(t *testing.T) (*lapitest.Server, *fakes) {
	t.Helper()
	f := newFakes()
	s := lapitest.New(t, executor.Config{Registry: f.reg, Handlers: f.handlers, Chromium: "/nonexistent/loupe-test-chromium"})
	t.Cleanup(func() {
		if got := s.X.Sessions(); len(got) > 0 {
			t.Errorf("fake operations started browsers: %+v", got)
		}
	})
	return s, f
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// apiError returns the registry error err carries, failing the test if
// there is none.
func apiError(t *testing.T, err error) *apitype.Error {
	t.Helper()
	e, ok := apitype.As(err)
	if !ok {
		t.Fatalf("want a registry error, got %v", err)
	}
	return e
}

func TestReadAndWrite(t *testing.T) {
	s, f := start(t)
	c := s.Client()

	raw, err := c.Call(ctx(t), "echo", "work", echoIn{Text: "hello", N: 3}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got echoOut
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if want := (echoOut{Text: "hello", N: 3, Session: "work"}); got != want {
		t.Errorf("echo: got %+v, want %+v", got, want)
	}

	// A name with a space travels as a dot (/v0/op/fake.write). A write
	// that must not start a browser has no state to report.
	resp, err := c.Do(ctx(t), "fake write", apitype.OpRequest{Input: json.RawMessage(`{"value":"v1"}`), Report: &apitype.ReportOptions{Diff: true}})
	if err != nil {
		t.Fatal(err)
	}
	var w writeOut
	if err := json.Unmarshal(resp.Result, &w); err != nil {
		t.Fatal(err)
	}
	if w.Wrote != "v1" || resp.Report != nil || resp.Error != nil {
		t.Errorf("write: %+v report %+v error %v", w, resp.Report, resp.Error)
	}
	if n := f.ran.Load(); n != 2 {
		t.Errorf("handler calls: %d, want 2", n)
	}
}

// TestRefusedBeforeRun: an unknown operation, an unknown input field, a
// wrong type and a failed input rule are BAD_INPUT, not executed, and no
// handler runs.
func TestRefusedBeforeRun(t *testing.T) {
	s, f := start(t)
	c := s.Client()
	for _, tc := range []struct {
		name, op, input, inMessage string
	}{
		{"unknown op", "nope", `{}`, `unknown operation "nope"`},
		{"unknown field", "echo", `{"text":"x","txet":"y"}`, `unknown field "txet"`},
		{"wrong type", "echo", `{"text":1}`, "echo: bad input"},
		{"not an object", "echo", `[1]`, "echo: bad input"},
		// Field markup travels unrendered: each front end names the field.
		{"input rule", "need", `{}`, "{field:ref} is required"},
		{"unknown field of a write", "fake write", `{"valeu":"x"}`, `unknown field "valeu"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Do(ctx(t), tc.op, apitype.OpRequest{Input: json.RawMessage(tc.input)})
			e := apiError(t, err)
			if e.Code != apitype.BadInput || !e.NotExecuted || e.Op != tc.op || !strings.Contains(e.Message, tc.inMessage) {
				t.Errorf("got %+v, want BAD_INPUT, not executed, op %q, message with %q", e, tc.op, tc.inMessage)
			}
			if e.Hint != apitype.Hints[apitype.BadInput] {
				t.Errorf("hint %q: the front end renders {help}, so it must arrive unrendered", e.Hint)
			}
		})
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("%d handlers ran", n)
	}
}

// TestHandlerErrorOverTheWire: a registry error a handler returns reaches
// the client whole: code, message, recovery steps, candidates, surface,
// not_executed and the operation's name.
func TestHandlerErrorOverTheWire(t *testing.T) {
	s, f := start(t)
	c := s.Client()

	_, err := c.Do(ctx(t), "fail", apitype.OpRequest{})
	e := apiError(t, err)
	want := &apitype.Error{
		Code: apitype.SurfaceNotFound, Message: `no surface "s9"`, Hint: "list the surfaces ({1}) and pick one",
		NotExecuted: true, Candidates: []string{"s1", "s2"}, SurfaceID: "s9",
		Recovery: []apitype.Step{{Op: "surfaces", Args: map[string]string{"all": "true"}}}, Op: "fail",
	}
	// A write's error names the write's operation id.
	if !strings.HasPrefix(e.OperationID, "op-") {
		t.Errorf("the failed write's error has no operation id: %q", e.OperationID)
	}
	want.OperationID = e.OperationID
	if !reflect.DeepEqual(e, want) {
		t.Errorf("fail:\n got %#v\nwant %#v", e, want)
	}

	// A write that failed after its input was sent stays not executed:
	// false; a read is always safe to retry.
	for op, notExec := range map[string]bool{"fail late": false, "fail read": true} {
		_, err := c.Do(ctx(t), op, apitype.OpRequest{})
		e := apiError(t, err)
		if e.Code != apitype.NotActionable || e.NotExecuted != notExec || e.Op != op {
			t.Errorf("%s: got %+v, want NOT_ACTIONABLE not_executed=%v", op, e, notExec)
		}
	}
	if n := f.ran.Load(); n != 3 {
		t.Errorf("handler calls: %d, want 3", n)
	}
}

// TestDeadline: a call that outlives its deadline (timeout_ms in the
// request) is TIMEOUT with that deadline; a write's outcome is then
// unknown (not_executed false), a read's is not.
func TestDeadline(t *testing.T) {
	s, _ := start(t)
	c := s.Client()
	for op, notExec := range map[string]bool{"block": false, "block read": true} {
		t.Run(op, func(t *testing.T) {
			begin := time.Now()
			_, err := c.Do(ctx(t), op, apitype.OpRequest{TimeoutMS: 40})
			e := apiError(t, err)
			if e.Code != apitype.Timeout || e.TimeoutMS != 40 || e.NotExecuted != notExec || e.Op != op {
				t.Errorf("got %+v, want TIMEOUT timeout_ms=40 not_executed=%v", e, notExec)
			}
			if d := time.Since(begin); d > 5*time.Second {
				t.Errorf("the deadline of 40ms took %s (the op's own 5s default?)", d)
			}
		})
	}
}

// post sends a raw request to the API and decodes the reply.
func post(t *testing.T, s *lapitest.Server, path string, hdr map[string]string, body string) (int, apitype.OpResponse) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost, "http://"+apitype.Host+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(apitype.HeaderBuild, lapitest.Build)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := s.HTTP().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out apitype.OpResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: reply is not an OpResponse: %v", path, err)
	}
	return resp.StatusCode, out
}

// TestForeignOrigin: a request a web page could make (it carries an
// Origin) or one addressed to another host (DNS rebinding) is refused
// with 403 before routing: nothing runs, whatever the route.
func TestForeignOrigin(t *testing.T) {
	s, f := start(t)
	for _, tc := range []struct {
		name string
		hdr  map[string]string
	}{
		{"origin", map[string]string{"Origin": "http://evil.example"}},
		{"null origin", map[string]string{"Origin": "null"}},
		{"foreign host", map[string]string{"Host": "evil.example"}},
		{"loopback host", map[string]string{"Host": "127.0.0.1:8080"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{apitype.OpPath("fake write"), apitype.Prefix + "/shutdown"} {
				code, resp := post(t, s, path, tc.hdr, `{"input":{"value":"x"}}`)
				if code != http.StatusForbidden || resp.Error == nil || resp.Error.Code != apitype.ForeignOrigin || !resp.Error.NotExecuted {
					t.Errorf("%s: %d %+v, want 403 FOREIGN_ORIGIN", path, code, resp.Error)
				}
			}
		})
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("%d handlers ran", n)
	}
	if len(s.Shutdowns) != 0 {
		t.Error("a refused shutdown request stopped the daemon")
	}
	// The same request from loupe's own client runs.
	if code, resp := post(t, s, apitype.OpPath("fake write"), nil, `{"input":{"value":"x"}}`); code != http.StatusOK || resp.Error != nil {
		t.Errorf("own client: %d %+v", code, resp.Error)
	}
}

// TestOtherBuild: a client of another build may mean other things by the
// same input, so the daemon refuses its operation before it runs, and the
// client says which builds differ.
func TestOtherBuild(t *testing.T) {
	s, f := start(t)
	_, err := s.ClientOfBuild("other").Call(ctx(t), "fake write", "", writeIn{Value: "x"}, 0)
	var bm *client.BuildMismatch
	if !errors.As(err, &bm) || bm.Daemon != lapitest.Build || bm.Client != "other" {
		t.Errorf("typed client: got %v, want a BuildMismatch", err)
	}
	code, resp := post(t, s, apitype.OpPath("fake write"), map[string]string{apitype.HeaderBuild: "other"}, `{"input":{"value":"x"}}`)
	if code != http.StatusConflict || resp.Error == nil || resp.Error.Code != apitype.DaemonUnavailable || !resp.Error.NotExecuted ||
		!reflect.DeepEqual(resp.Error.Recovery, []apitype.Step{{Op: "daemon stop"}}) {
		t.Errorf("raw: %d %+v, want 409 DAEMON_UNAVAILABLE with the step daemon stop", code, resp.Error)
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("%d handlers ran for a client of another build", n)
	}
}

// TestMalformedRequest: a body that is not an OpRequest is BAD_INPUT and
// nothing runs.
func TestMalformedRequest(t *testing.T) {
	s, f := start(t)
	for _, body := range []string{`{`, `{"sesion":"x"}`, `{"input":{"value":"x"},"timeout_ms":"soon"}`} {
		code, resp := post(t, s, apitype.OpPath("fake write"), nil, body)
		if code != http.StatusBadRequest || resp.Error == nil || resp.Error.Code != apitype.BadInput {
			t.Errorf("%s: %d %+v, want 400 BAD_INPUT", body, code, resp.Error)
		}
	}
	if n := f.ran.Load(); n != 0 {
		t.Errorf("%d handlers ran", n)
	}
}

// TestClientsKeepTheirSurfaces: two clients of one session (and the CLI,
// client "") each keep their own current surface; another session's
// client of the same name is another client.
func TestClientsKeepTheirSurfaces(t *testing.T) {
	s, _ := start(t)
	c := s.Client()
	do := func(op, session, cl, input string) string {
		t.Helper()
		resp, err := c.Do(ctx(t), op, apitype.OpRequest{Session: session, Client: cl, Input: json.RawMessage(input)})
		if err != nil {
			t.Fatalf("%s as %s/%q: %v", op, session, cl, err)
		}
		var out surfaceOut
		if err := json.Unmarshal(resp.Result, &out); err != nil {
			t.Fatal(err)
		}
		return out.Current
	}
	do("use", "work", "a", `{"surface":"s1"}`)
	do("use", "work", "b", `{"surface":"s2"}`)
	for _, tc := range []struct{ session, client, want string }{
		{"work", "a", "s1"}, {"work", "b", "s2"}, {"work", "", ""}, {"other", "a", ""},
	} {
		if got := do("current", tc.session, tc.client, `{}`); got != tc.want {
			t.Errorf("current of %s/%q: %q, want %q", tc.session, tc.client, got, tc.want)
		}
	}
	do("use", "work", "b", `{"surface":"s3"}`)
	if got := do("current", "work", "a", `{}`); got != "s1" {
		t.Errorf("b's switch retargeted a: %q", got)
	}
}

// TestSessionNames: a session name is a safe directory name; a bad one is
// BAD_INPUT before anything runs, and no name is "default".
func TestSessionNames(t *testing.T) {
	s, f := start(t)
	c := s.Client()
	var runs int64
	for _, tc := range []struct {
		name, want string // want "" is refused
	}{
		{"", "default"},
		{"work", "work"},
		{"a.b_c-1", "a.b_c-1"},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), ""},
		{"../etc", ""},
		{".hidden", ""},
		{"-flag", ""},
		{"a/b", ""},
		{"with space", ""},
		{"naïve", ""},
	} {
		raw, err := c.Call(ctx(t), "echo", tc.name, echoIn{Text: "x"}, 0)
		if tc.want == "" {
			e := apiError(t, err)
			if e.Code != apitype.BadInput || !e.NotExecuted || !strings.Contains(e.Message, "session name") {
				t.Errorf("session %q: %+v, want BAD_INPUT", tc.name, e)
			}
			continue
		}
		runs++
		var out echoOut
		if err != nil || json.Unmarshal(raw, &out) != nil || out.Session != tc.want {
			t.Errorf("session %q: %v %s, want it to run as %q", tc.name, err, raw, tc.want)
		}
	}
	if n := f.ran.Load(); n != runs {
		t.Errorf("handler calls: %d, want %d", n, runs)
	}
}

// TestStatusAndShutdown: status names the daemon's build and no session
// with a browser; shutdown is accepted and handed to the daemon.
func TestStatusAndShutdown(t *testing.T) {
	s, _ := start(t)
	c := s.Client()
	st, err := c.Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Build != lapitest.Build || st.Sessions == nil || len(st.Sessions) != 0 {
		t.Errorf("status: %+v", st)
	}
	if err := c.Shutdown(ctx(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Shutdowns:
	case <-time.After(5 * time.Second):
		t.Error("shutdown was accepted but never handed to the daemon")
	}
}
