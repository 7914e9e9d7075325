package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitLimit bounds every wait in these tests: a fake browser answers at
// once, so reaching it means the connection lost or stalled a message.
const waitLimit = 5 * time.Second

// fakeTransport is an in-memory Transport: toConn carries what the browser
// sends, fromConn what the connection writes.
type fakeTransport struct {
	toConn   chan []byte
	fromConn chan []byte
	closed   chan struct{}
	once     sync.Once

	mu       sync.Mutex
	writeErr error // returned by Write when set
}

func newFakeTransport() *fakeTransport {
	return &fakeTransport{
		toConn:   make(chan []byte),
		fromConn: make(chan []byte, 256),
		closed:   make(chan struct{}),
	}
}

func (f *fakeTransport) Read() ([]byte, error) {
	select {
	case b, ok := <-f.toConn:
		if !ok {
			return nil, io.EOF
		}
		return b, nil
	case <-f.closed:
		return nil, io.EOF
	}
}

func (f *fakeTransport) Write(ctx context.Context, msg []byte) error {
	f.mu.Lock()
	err := f.writeErr
	f.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case f.fromConn <- append([]byte(nil), msg...):
		return nil
	case <-f.closed:
		return errors.New("fake transport closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeTransport) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// command is a message as the browser receives it.
type command struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
}

// browser plays the browser end of a fake transport, driven by the test.
type browser struct {
	t  *testing.T
	tr *fakeTransport
}

func newConn(t *testing.T) (*Conn, *browser) {
	t.Helper()
	tr := newFakeTransport()
	c := NewConn(tr)
	t.Cleanup(func() { _ = c.Close() })
	return c, &browser{t: t, tr: tr}
}

// next returns the next command the connection sent.
func (b *browser) next() command {
	b.t.Helper()
	select {
	case raw := <-b.tr.fromConn:
		var c command
		if err := json.Unmarshal(raw, &c); err != nil {
			b.t.Fatalf("connection sent malformed JSON %s: %v", raw, err)
		}
		return c
	case <-time.After(waitLimit):
		b.t.Fatal("no command from the connection")
		return command{}
	}
}

// send delivers one frame to the connection.
func (b *browser) send(frame string) {
	b.t.Helper()
	select {
	case b.tr.toConn <- []byte(frame):
	case <-time.After(waitLimit):
		b.t.Fatal("connection stopped reading")
	}
}

func (b *browser) reply(id int64, result string) {
	b.t.Helper()
	b.send(fmt.Sprintf(`{"id":%d,"result":%s}`, id, result))
}

func (b *browser) event(sessionID, method, params string) {
	b.t.Helper()
	if sessionID == "" {
		b.send(fmt.Sprintf(`{"method":%q,"params":%s}`, method, params))
		return
	}
	b.send(fmt.Sprintf(`{"method":%q,"sessionId":%q,"params":%s}`, method, sessionID, params))
}

// attach announces a target attached through parent ("" for the browser)
// and returns its session.
func (b *browser) attach(c *Conn, parent, sessionID, targetType string) *Session {
	b.t.Helper()
	b.event(parent, "Target.attachedToTarget", fmt.Sprintf(
		`{"sessionId":%q,"targetInfo":{"targetId":"T-%s","type":%q,"title":"t","url":"about:blank","attached":true,"canAccessOpener":false},"waitingForDebugger":true}`,
		sessionID, sessionID, targetType))
	// The attach is applied before the next frame is read; a round trip
	// on the browser session proves it.
	b.sync(c)
	s := c.Session(sessionID)
	if s == nil {
		b.t.Fatalf("session %s not created", sessionID)
	}
	return s
}

func (b *browser) detach(parent, sessionID string) {
	b.t.Helper()
	b.event(parent, "Target.detachedFromTarget", fmt.Sprintf(`{"sessionId":%q,"targetId":"T-%s"}`, sessionID, sessionID))
}

// sync makes one call on the browser session and answers it; when it
// returns, every frame sent before has been handled.
func (b *browser) sync(c *Conn) {
	b.t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Browser().Call(context.Background(), "Test.sync", nil, nil) }()
	cmd := b.next()
	if cmd.Method != "Test.sync" {
		b.t.Fatalf("want Test.sync, got %+v", cmd)
	}
	b.reply(cmd.ID, `{}`)
	if err := wait(b.t, done); err != nil {
		b.t.Fatal(err)
	}
}

// callAsync starts a call and returns the channel its error arrives on and
// where its result is decoded.
func callAsync(s *Session, ctx context.Context, method string, params any) (<-chan error, *map[string]any) {
	done := make(chan error, 1)
	var res map[string]any
	go func() { done <- s.Call(ctx, method, params, &res) }()
	return done, &res
}

func wait[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatal("timed out")
		var zero T
		return zero
	}
}

// recv reads the next event from a subscription.
func recv(t *testing.T, ch <-chan Event) Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		return ev
	case <-time.After(waitLimit):
		t.Fatal("no event")
		return Event{}
	}
}

// closedSoon reports whether ch closes within the wait limit, draining
// anything still queued.
func closedSoon[T any](ch <-chan T) bool {
	deadline := time.After(waitLimit)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestCallAndReply(t *testing.T) {
	c, b := newConn(t)
	done, res := callAsync(c.Browser(), context.Background(), "Browser.getVersion", nil)
	cmd := b.next()
	if cmd.Method != "Browser.getVersion" || cmd.SessionID != "" || cmd.ID == 0 {
		t.Fatalf("command = %+v", cmd)
	}
	if string(cmd.Params) != "{}" {
		t.Errorf("nil params sent as %s, want {}", cmd.Params)
	}
	b.reply(cmd.ID, `{"product":"Chrome/999","protocolVersion":"1.3"}`)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if (*res)["product"] != "Chrome/999" {
		t.Errorf("result = %v", *res)
	}
}

func TestCallParamsAndNilResult(t *testing.T) {
	c, b := newConn(t)
	done := make(chan error, 1)
	go func() {
		done <- c.Browser().Call(context.Background(), "Target.setDiscoverTargets", map[string]any{"discover": true}, nil)
	}()
	cmd := b.next()
	if string(cmd.Params) != `{"discover":true}` {
		t.Errorf("params = %s", cmd.Params)
	}
	b.reply(cmd.ID, `{}`)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
}

// Replies are matched to calls by id, whatever their order.
func TestRepliesRoutedByID(t *testing.T) {
	c, b := newConn(t)
	const n = 20
	type result struct {
		i   int
		got float64
		err error
	}
	results := make(chan result, n)
	for i := range n {
		go func() {
			var res struct {
				Echo float64 `json:"echo"`
			}
			err := c.Browser().Call(context.Background(), "Test.echo", map[string]int{"v": i}, &res)
			results <- result{i, res.Echo, err}
		}()
	}
	cmds := make([]command, n)
	seen := map[int64]bool{}
	for i := range cmds {
		cmds[i] = b.next()
		if seen[cmds[i].ID] {
			t.Fatalf("id %d used twice", cmds[i].ID)
		}
		seen[cmds[i].ID] = true
	}
	for i := n - 1; i >= 0; i-- { // answer newest first
		var p struct {
			V int `json:"v"`
		}
		if err := json.Unmarshal(cmds[i].Params, &p); err != nil {
			t.Fatal(err)
		}
		b.reply(cmds[i].ID, fmt.Sprintf(`{"echo":%d}`, p.V))
	}
	for range n {
		r := wait(t, results)
		if r.err != nil || int(r.got) != r.i {
			t.Errorf("call %d got %v, %v", r.i, r.got, r.err)
		}
	}
}

func TestErrorReply(t *testing.T) {
	c, b := newConn(t)
	done, _ := callAsync(c.Browser(), context.Background(), "Page.navigate", map[string]string{"url": "x"})
	cmd := b.next()
	b.send(fmt.Sprintf(`{"id":%d,"error":{"code":-32000,"message":"Cannot navigate to invalid URL","data":"x"}}`, cmd.ID))
	err := wait(t, done)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *cdp.Error", err, err)
	}
	if e.Code != -32000 || e.Message != "Cannot navigate to invalid URL" || e.Data != "x" || e.Method != "Page.navigate" {
		t.Errorf("error = %+v", e)
	}
	if got := e.Error(); got != "Page.navigate: Cannot navigate to invalid URL (-32000): x" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Code: 1, Message: "m", Method: "A.b"}).Error(); got != "A.b: m (1)" {
		t.Errorf("Error() without data = %q", got)
	}
}

func TestResultThatDoesNotDecode(t *testing.T) {
	c, b := newConn(t)
	done := make(chan error, 1)
	go func() {
		var n int
		done <- c.Browser().Call(context.Background(), "Test.n", nil, &n)
	}()
	cmd := b.next()
	b.reply(cmd.ID, `{"not":"a number"}`)
	if err := wait(t, done); err == nil || !strings.Contains(err.Error(), "decoding result of Test.n") {
		t.Errorf("err = %v", err)
	}
}

func TestUnencodableParams(t *testing.T) {
	c, _ := newConn(t)
	err := c.Browser().Call(context.Background(), "Test.x", map[string]any{"f": func() {}}, nil)
	if err == nil || !strings.Contains(err.Error(), "encoding Test.x") {
		t.Errorf("err = %v", err)
	}
}

func TestMalformedFrames(t *testing.T) {
	c, b := newConn(t)
	sub, cancel := c.Browser().Listen()
	defer cancel()
	done, res := callAsync(c.Browser(), context.Background(), "Test.x", nil)
	cmd := b.next()
	for _, frame := range []string{
		`{not json`,
		``,
		`[]`,
		`"a string"`,
		`{"id":"seven","result":{}}`,
		`{"method":42}`,
		`{"id":99999,"result":{}}`, // no such call
		`{}`,                       // neither reply nor event
		`{"method":"Target.attachedToTarget","params":{"sessionId":7}}`, // bad params
		`{"method":"Target.attachedToTarget","params":{}}`,              // no session id
		`{"method":"Target.detachedFromTarget","params":"x"}`,
	} {
		b.send(frame)
	}
	b.reply(cmd.ID, `{"ok":1}`)
	if err := wait(t, done); err != nil || (*res)["ok"] != float64(1) {
		t.Fatalf("call after malformed frames: %v %v", err, *res)
	}
	if c.Err() != nil {
		t.Fatalf("connection ended: %v", c.Err())
	}
	// The well-formed events among them were still published.
	for _, want := range []string{"Target.attachedToTarget", "Target.attachedToTarget", "Target.detachedFromTarget"} {
		if ev := recv(t, sub); ev.Method != want {
			t.Errorf("event %s, want %s", ev.Method, want)
		}
	}
	if len(c.Browser().Children()) != 0 {
		t.Error("a malformed attach created a session")
	}
}

// When the transport ends, pending calls fail with ErrClosed, every
// session ends, and later calls fail at once.
func TestTransportEOF(t *testing.T) {
	c, b := newConn(t)
	page := b.attach(c, "", "P", "page")
	top := c.Browser()
	pendingBrowser, _ := callAsync(top, context.Background(), "Browser.getVersion", nil)
	b.next()
	pendingPage, _ := callAsync(page, context.Background(), "Page.reload", nil)
	b.next()
	sub, cancel := page.Listen()
	defer cancel()

	close(b.tr.toConn) // the browser went away

	for _, ch := range []<-chan error{pendingBrowser, pendingPage} {
		err := wait(t, ch)
		if !errors.Is(err, ErrClosed) || !errors.Is(err, io.EOF) {
			t.Errorf("pending call: %v, want ErrClosed wrapping EOF", err)
		}
	}
	select {
	case <-c.Done():
	case <-time.After(waitLimit):
		t.Fatal("connection not done")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Errorf("Err = %v", c.Err())
	}
	for _, s := range []*Session{top, page} {
		if !isDone(s.Done()) || !errors.Is(s.Err(), ErrClosed) {
			t.Errorf("session %q: done %v err %v", s.ID(), isDone(s.Done()), s.Err())
		}
	}
	if !closedSoon(sub) {
		t.Error("subscription not closed")
	}
	if err := page.Call(context.Background(), "Page.reload", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after EOF: %v", err)
	}
	if c.Session("P") != nil {
		t.Error("session still listed after the connection ended")
	}
	// The browser session stays usable as a value: calls on it fail
	// instead of panicking (stopping a crashed browser makes such a call).
	if c.Browser() == nil {
		t.Fatal("Browser() is nil after the connection ended")
	}
	if err := c.Browser().Call(context.Background(), "Browser.close", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("browser call after EOF: %v", err)
	}
}

func TestCloseFailsPendingCalls(t *testing.T) {
	c, b := newConn(t)
	pending, _ := callAsync(c.Browser(), context.Background(), "Browser.getVersion", nil)
	b.next()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, pending); !errors.Is(err, ErrClosed) {
		t.Errorf("pending call after Close: %v", err)
	}
	if !isDone(c.Done()) {
		t.Error("Close returned before the reader stopped")
	}
}

func TestContextCancel(t *testing.T) {
	c, b := newConn(t)
	ctx, cancel := context.WithCancel(context.Background())
	pending, _ := callAsync(c.Browser(), ctx, "Runtime.evaluate", nil)
	cmd := b.next()
	cancel()
	err := wait(t, pending)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "Runtime.evaluate") {
		t.Errorf("cancelled call: %v", err)
	}
	// The late reply is dropped and the connection carries on.
	b.reply(cmd.ID, `{}`)
	done, _ := callAsync(c.Browser(), context.Background(), "Test.after", nil)
	next := b.next()
	if next.ID == cmd.ID {
		t.Error("id reused")
	}
	b.reply(next.ID, `{}`)
	if err := wait(t, done); err != nil {
		t.Error(err)
	}
	c.mu.Lock()
	left := len(c.pending)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still pending", left)
	}
}

func TestContextDeadline(t *testing.T) {
	c, b := newConn(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	pending, _ := callAsync(c.Browser(), ctx, "Runtime.evaluate", nil)
	b.next() // never answered
	if err := wait(t, pending); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call past its deadline: %v", err)
	}
}

// A failed write fails the call and leaves nothing pending.
func TestWriteError(t *testing.T) {
	c, b := newConn(t)
	boom := errors.New("pipe broke")
	b.tr.mu.Lock()
	b.tr.writeErr = boom
	b.tr.mu.Unlock()
	if err := c.Browser().Call(context.Background(), "Test.x", nil, nil); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	c.mu.Lock()
	left := len(c.pending)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still pending after a failed write", left)
	}
}

// Closing a connection stops every goroutine it started: the reader and
// the subscription pumps, including those of subscriptions never
// cancelled (Listen's end with their session) and of subscriptions with
// events queued that nobody read. Subscribe's are cancelled, as its
// contract asks.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		tr := newFakeTransport()
		c := NewConn(tr)
		b := &browser{t: t, tr: tr}
		page := b.attach(c, "", "P", "page")
		for range 5 {
			page.Listen()
			c.Browser().Listen("X.y")
			_, cancel := page.Subscribe("X.z")
			defer cancel()
		}
		b.event("P", "X.z", `{}`)
		b.event("", "X.y", `{}`)
		b.sync(c)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	// Goroutines end asynchronously after Close; poll (bounded) until the
	// count is back, rather than sleeping a fixed time.
	deadline := time.Now().Add(waitLimit)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}
