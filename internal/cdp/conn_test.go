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

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
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

func TestAttachCreatesChildSessions(t *testing.T) {
	c, b := newConn(t)
	page := b.attach(c, "", "S1", "page")
	frame := b.attach(c, "S1", "S2", "iframe")

	if page.ID() != "S1" || page.Parent() != c.Browser() || page.Conn() != c {
		t.Errorf("page session: id %q parent %v", page.ID(), page.Parent())
	}
	info := page.Target()
	if info.TargetID != "T-S1" || info.Type != "page" || info.URL != "about:blank" {
		t.Errorf("target info = %+v", info)
	}
	if !page.WaitingForDebugger() {
		t.Error("waitingForDebugger lost")
	}
	if frame.Parent() != page {
		t.Error("an iframe attached through the page is not its child")
	}
	if ch := c.Browser().Children(); len(ch) != 1 || ch[0] != page {
		t.Errorf("browser children = %v", ch)
	}
	if ch := page.Children(); len(ch) != 1 || ch[0] != frame {
		t.Errorf("page children = %v", ch)
	}
	if c.Browser().ID() != "" || c.Browser().Target().Type != "browser" || c.Browser().Parent() != nil {
		t.Errorf("browser session = %+v", c.Browser().Target())
	}

	// Calls on a child carry its session id.
	done, res := callAsync(frame, context.Background(), "Runtime.evaluate", map[string]string{"expression": "1"})
	cmd := b.next()
	if cmd.SessionID != "S2" || cmd.Method != "Runtime.evaluate" {
		t.Fatalf("command = %+v", cmd)
	}
	b.reply(cmd.ID, `{"result":{"type":"number","value":1}}`)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if (*res)["result"] == nil {
		t.Errorf("result = %v", *res)
	}

	// A second attach with the same session id does not replace it.
	b.attach(c, "", "S1", "page")
	if c.Session("S1") != page || len(c.Browser().Children()) != 1 {
		t.Error("a duplicate attach replaced the session")
	}
	// An attach carried by an unknown session is ignored.
	b.event("nope", "Target.attachedToTarget", `{"sessionId":"S9","targetInfo":{"targetId":"x","type":"page"}}`)
	b.sync(c)
	if c.Session("S9") != nil {
		t.Error("session attached through an unknown session")
	}
}

// Events reach the subscribers of the session that carried them, in wire
// order, and only those that asked for the method.
func TestEventsRoutedBySessionInOrder(t *testing.T) {
	c, b := newConn(t)
	s1 := b.attach(c, "", "S1", "page")
	s2 := b.attach(c, "", "S2", "page")

	all1, cancel := s1.Listen()
	defer cancel()
	frames1, cancelF := s1.Listen("Page.frameNavigated", "Page.frameDetached")
	defer cancelF()
	all2, cancel2 := s2.Listen()
	defer cancel2()
	top, cancelTop := c.Browser().Listen("Target.targetCreated")
	defer cancelTop()

	const n = 50
	for i := range n {
		b.event("S1", "Page.frameNavigated", fmt.Sprintf(`{"i":%d}`, i))
		b.event("S2", "Runtime.consoleAPICalled", fmt.Sprintf(`{"i":%d}`, i))
		b.event("S1", "Runtime.executionContextCreated", fmt.Sprintf(`{"i":%d}`, i))
		b.event("", "Target.targetCreated", fmt.Sprintf(`{"i":%d}`, i))
		b.event("S404", "Page.frameNavigated", `{"i":-1}`) // unknown session: dropped
	}
	index := func(ev Event) int {
		var p struct {
			I int `json:"i"`
		}
		if err := jsonv2.Unmarshal(ev.Params, &p); err != nil {
			t.Fatal(err)
		}
		return p.I
	}
	for i := range n {
		for _, want := range []string{"Page.frameNavigated", "Runtime.executionContextCreated"} {
			ev := recv(t, all1)
			if ev.Method != want || index(ev) != i {
				t.Fatalf("S1 event %d: got %s %s, want %s", i, ev.Method, ev.Params, want)
			}
		}
		if ev := recv(t, frames1); ev.Method != "Page.frameNavigated" || index(ev) != i {
			t.Fatalf("S1 filtered event %d: got %s %s", i, ev.Method, ev.Params)
		}
		if ev := recv(t, all2); ev.Method != "Runtime.consoleAPICalled" || index(ev) != i {
			t.Fatalf("S2 event %d: got %s %s", i, ev.Method, ev.Params)
		}
		if ev := recv(t, top); ev.Method != "Target.targetCreated" || index(ev) != i {
			t.Fatalf("browser event %d: got %s %s", i, ev.Method, ev.Params)
		}
	}
	// Nothing else was queued for the filtered or other subscribers.
	b.sync(c)
	select {
	case ev := <-frames1:
		t.Errorf("filtered subscriber got %s", ev.Method)
	case ev := <-all2:
		t.Errorf("S2 got %s", ev.Method)
	default:
	}
}

// A subscriber that does not read never stalls the reader: replies and
// other subscribers go on, and its queue keeps every event in order.
func TestSlowSubscriberDoesNotStallReader(t *testing.T) {
	c, b := newConn(t)
	slow, cancel := c.Browser().Listen("Test.tick")
	defer cancel()
	const n = 2000
	for i := range n {
		b.event("", "Test.tick", fmt.Sprintf(`{"i":%d}`, i))
	}
	b.sync(c) // the reader is still free
	for i := range n {
		ev := recv(t, slow)
		var p struct {
			I int `json:"i"`
		}
		if err := jsonv2.Unmarshal(ev.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.I != i {
			t.Fatalf("event %d arrived as %d", i, p.I)
		}
	}
}

func TestListenCancel(t *testing.T) {
	c, b := newConn(t)
	ch, cancel := c.Browser().Listen()
	b.event("", "Test.a", `{}`)
	if ev := recv(t, ch); ev.Method != "Test.a" {
		t.Fatalf("got %s", ev.Method)
	}
	cancel()
	cancel() // twice is fine
	if !closedSoon(ch) {
		t.Fatal("channel not closed by cancel")
	}
	b.event("", "Test.b", `{}`) // nobody listens: must not block
	b.sync(c)
}

// Subscribe is cdproto's interface: params only, one method.
func TestSubscribe(t *testing.T) {
	c, b := newConn(t)
	ch, cancel := c.Browser().Subscribe("Test.a")
	b.event("", "Test.b", `{"x":0}`)
	b.event("", "Test.a", `{"x":1}`)
	select {
	case v := <-ch:
		if string(v) != `{"x":1}` {
			t.Errorf("params = %s", v)
		}
	case <-time.After(waitLimit):
		t.Fatal("no event")
	}
	cancel()
	cancel()
	if !closedSoon(ch) {
		t.Fatal("channel not closed by cancel")
	}
}

// A tap runs on the reader goroutine before the next frame is read, so
// when a call returns, its tap has seen every event sent before the reply.
func TestTapRunsBeforeLaterReply(t *testing.T) {
	c, b := newConn(t)
	page := b.attach(c, "", "S1", "page")
	var seen []string // written by the tap, read after Call returns: no lock, -race checks the ordering
	cancelTap := page.Tap(func(ev Event) { seen = append(seen, ev.Method+" "+string(ev.Params)) },
		"Page.frameNavigated", "Page.frameStartedLoading")

	done, _ := callAsync(page, context.Background(), "Page.createIsolatedWorld", nil)
	cmd := b.next()
	b.event("S1", "Page.frameStartedLoading", `{"frameId":"F"}`)
	b.event("S1", "Runtime.executionContextCreated", `{}`) // not tapped
	b.event("S1", "Page.frameNavigated", `{"frameId":"F","loaderId":"L2"}`)
	b.reply(cmd.ID, `{"executionContextId":7}`)
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	want := []string{`Page.frameStartedLoading {"frameId":"F"}`, `Page.frameNavigated {"frameId":"F","loaderId":"L2"}`}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("tap saw %q, want %q", seen, want)
	}

	// A cancelled tap sees nothing more.
	cancelTap()
	b.event("S1", "Page.frameNavigated", `{"frameId":"F","loaderId":"L3"}`)
	b.sync(c)
	if len(seen) != 2 {
		t.Errorf("cancelled tap saw %q", seen[2:])
	}

	// A tap without methods sees every event of its session only.
	var any []string
	page.Tap(func(ev Event) { any = append(any, ev.Method) })
	b.event("S1", "A.one", `{}`)
	b.event("", "B.other", `{}`)
	b.event("S1", "A.two", `{}`)
	b.sync(c)
	if strings.Join(any, " ") != "A.one A.two" {
		t.Errorf("catch-all tap saw %q", any)
	}
}

// Taps run before subscribers are fed, and a detach's own event still
// reaches the parent's taps and subscribers.
func TestTapSeesDetachEvent(t *testing.T) {
	c, b := newConn(t)
	page := b.attach(c, "", "S1", "page")
	var tapped []string
	c.Browser().Tap(func(ev Event) {
		// When the tap runs the session is still there: it ends after.
		tapped = append(tapped, fmt.Sprintf("%s live=%v", ev.Method, c.Session("S1") != nil))
	}, "Target.detachedFromTarget")
	sub, cancel := c.Browser().Listen("Target.detachedFromTarget")
	defer cancel()
	b.detach("", "S1")
	if ev := recv(t, sub); ev.Method != "Target.detachedFromTarget" {
		t.Fatalf("got %s", ev.Method)
	}
	b.sync(c)
	if len(tapped) != 1 || tapped[0] != "Target.detachedFromTarget live=true" {
		t.Errorf("tap saw %q", tapped)
	}
	if !isDone(page.Done()) {
		t.Error("page session not ended")
	}
}

// Detaching a session ends it and every session below it; their pending
// calls fail with ErrSessionGone, their subscriptions close, and siblings
// are untouched.
func TestDetachEndsSessionAndDescendants(t *testing.T) {
	c, b := newConn(t)
	page := b.attach(c, "", "P", "page")
	oopif := b.attach(c, "P", "F1", "iframe")
	nested := b.attach(c, "F1", "F2", "iframe")
	other := b.attach(c, "", "Q", "page")

	pendingNested, _ := callAsync(nested, context.Background(), "Runtime.evaluate", nil)
	cmdNested := b.next()
	pendingPage, _ := callAsync(page, context.Background(), "Page.reload", nil)
	b.next()
	pendingOther, resOther := callAsync(other, context.Background(), "Page.reload", nil)
	cmdOther := b.next()

	subNested, cancelNested := nested.Listen()
	defer cancelNested()
	subPage, cancelPage := page.Listen()
	defer cancelPage()

	// Chromium detaches the page only; its frames go with it.
	b.detach("", "P")

	for name, ch := range map[string]<-chan error{"page": pendingPage, "nested frame": pendingNested} {
		err := wait(t, ch)
		if !errors.Is(err, ErrSessionGone) {
			t.Errorf("pending call on the %s: %v, want ErrSessionGone", name, err)
		}
	}
	// Pending calls fail before the sessions are marked ended, both in the
	// reader's handling of the detach; a round trip waits for all of it.
	b.sync(c)
	for _, s := range []*Session{page, oopif, nested} {
		if !isDone(s.Done()) {
			t.Errorf("session %s not ended", s.ID())
		}
		if !errors.Is(s.Err(), ErrSessionGone) {
			t.Errorf("session %s: Err = %v", s.ID(), s.Err())
		}
		if c.Session(s.ID()) != nil {
			t.Errorf("session %s still listed", s.ID())
		}
		// New calls fail at once, without reaching the browser.
		if err := s.Call(context.Background(), "Runtime.evaluate", nil, nil); !errors.Is(err, ErrSessionGone) {
			t.Errorf("call on ended %s: %v", s.ID(), err)
		}
		// Listening on an ended session gives a closed channel.
		ch, cancel := s.Listen()
		if !closedSoon(ch) {
			t.Errorf("Listen on ended %s is open", s.ID())
		}
		cancel()
	}
	if !closedSoon(subNested) || !closedSoon(subPage) {
		t.Error("subscriptions of ended sessions not closed")
	}
	if ch := c.Browser().Children(); len(ch) != 1 || ch[0] != other {
		t.Errorf("browser children after detach = %v", ch)
	}

	// The sibling lives on; a late reply to the dead frame's call is
	// dropped without harm.
	b.reply(cmdNested.ID, `{}`)
	b.reply(cmdOther.ID, `{"ok":true}`)
	if err := wait(t, pendingOther); err != nil || (*resOther)["ok"] != true {
		t.Errorf("sibling call: %v %v", err, *resOther)
	}
	if other.Err() != nil || isDone(other.Done()) {
		t.Error("sibling session ended")
	}
	select {
	case <-b.tr.fromConn:
		t.Error("a call on an ended session reached the browser")
	default:
	}

	// Detaching an unknown session, or the browser's own, does nothing.
	b.detach("", "nope")
	b.event("", "Target.detachedFromTarget", `{"sessionId":""}`)
	b.sync(c)
	if c.Browser().Err() != nil || c.Err() != nil {
		t.Error("browser session ended")
	}
}

// Detaching a child leaves its parent alone.
func TestDetachChildKeepsParent(t *testing.T) {
	c, b := newConn(t)
	page := b.attach(c, "", "P", "page")
	frame := b.attach(c, "P", "F", "iframe")
	b.detach("P", "F")
	b.sync(c)
	if !isDone(frame.Done()) {
		t.Error("frame session not ended")
	}
	if page.Err() != nil || len(page.Children()) != 0 {
		t.Errorf("page: err %v, children %v", page.Err(), page.Children())
	}
	done, _ := callAsync(page, context.Background(), "Page.reload", nil)
	b.reply(b.next().ID, `{}`)
	if err := wait(t, done); err != nil {
		t.Error(err)
	}
}

// One malformed frame does not take the connection down.
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
