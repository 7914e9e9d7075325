package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

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

// A batch writes its commands in the order given before any reply, so
// the last can be sent while the browser has answered none of the
// others; each gets its own reply (decoded where asked) or error.
func TestBatchSendsInOrderBeforeReplies(t *testing.T) {
	c, b := newConn(t)
	var echo struct {
		V int `json:"v"`
	}
	done := make(chan []error, 1)
	go func() {
		done <- c.Browser().Batch(context.Background(),
			Command{Method: "A.one", Params: map[string]int{"n": 1}},
			Command{Method: "A.two", Result: &echo},
			Command{Method: "A.three"})
	}()
	var cmds []command
	for range 3 {
		cmds = append(cmds, b.next()) // none answered yet
	}
	for i, want := range []string{"A.one", "A.two", "A.three"} {
		if cmds[i].Method != want {
			t.Fatalf("command %d is %s, want %s (in order)", i, cmds[i].Method, want)
		}
	}
	if string(cmds[0].Params) != `{"n":1}` || string(cmds[2].Params) != `{}` {
		t.Errorf("params %s and %s", cmds[0].Params, cmds[2].Params)
	}
	// Answered last first; the first fails.
	b.reply(cmds[2].ID, `{}`)
	b.reply(cmds[1].ID, `{"v":7}`)
	b.send(fmt.Sprintf(`{"id":%d,"error":{"code":-32000,"message":"no"}}`, cmds[0].ID))
	errs := wait(t, done)
	var e *Error
	if len(errs) != 3 || !errors.As(errs[0], &e) || errs[1] != nil || errs[2] != nil {
		t.Fatalf("errors %v", errs)
	}
	if echo.V != 7 {
		t.Errorf("A.two's result decoded as %+v", echo)
	}
}
