package cdp

import (
	"context"
	"fmt"
	"slices"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// TargetInfo is the part of Target.TargetInfo the connection keeps for a
// session. It is decoded here, not with cdproto's type, so that an unknown
// future target type never fails an attach.
type TargetInfo struct {
	TargetID         string `json:"targetId"`
	Type             string `json:"type"`
	Title            string `json:"title"`
	URL              string `json:"url"`
	OpenerID         string `json:"openerId,omitzero"`
	ParentFrameID    string `json:"parentFrameId,omitzero"`
	BrowserContextID string `json:"browserContextId,omitzero"`
}

// Session is one flattened protocol session: the browser itself (id "") or
// an attached target. It implements cdproto's cdp.Session, so the generated
// typed commands run on it with cdp.Call.
type Session struct {
	conn   *Conn
	id     string
	parent *Session
	info   TargetInfo

	// waiting is set at attach when the target is paused until
	// Runtime.runIfWaitingForDebugger; read-only after creation.
	waiting bool

	done chan struct{} // closed when the session ends

	// mu guards the fields below it.
	mu       sync.Mutex
	taps     []*tap
	subs     []*subscription
	children []*Session
	err      error
}

var _ cdpproto.Session = (*Session)(nil)

func newSession(c *Conn, id string, parent *Session, info TargetInfo) *Session {
	return &Session{conn: c, id: id, parent: parent, info: info, done: make(chan struct{})}
}

// ID is the protocol session id ("" for the browser session).
func (s *Session) ID() string { return s.id }

// Parent is the session that attached this one, nil for the browser.
func (s *Session) Parent() *Session { return s.parent }

// Target describes the attached target as it was at attach time.
func (s *Session) Target() TargetInfo { return s.info }

// WaitingForDebugger reports whether the target was paused at attach.
func (s *Session) WaitingForDebugger() bool { return s.waiting }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err reports why the session ended, or nil while it is live.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Conn returns the connection the session belongs to.
func (s *Session) Conn() *Conn { return s.conn }

// Call sends a command on this session and decodes its result into result
// (which may be nil). It returns a *Error for an error reply.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	raw, err := s.conn.call(ctx, s.id, method, params)
	if err != nil {
		return err
	}
	return decodeResult(method, raw, result)
}

func decodeResult(method string, raw jsonv2.Value, result any) error {
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := jsonv2.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("cdp: decoding result of %s: %w", method, err)
	}
	return nil
}

// Command is one command of a Batch: its method, parameters and where
// its result is decoded (nil: not decoded).
type Command struct {
	Method string
	Params any
	Result any
}

// Batch sends the commands in order, without waiting for a reply
// between them, then waits for every reply: one round trip for all, and
// the browser sees them in the order given — which Call from several
// goroutines does not promise. That order matters where a command must
// follow others without waiting on them: a page paused at its start is
// resumed (Runtime.runIfWaitingForDebugger) after the domains are
// enabled, while a page that has no renderer yet (a popup opened with
// noopener) answers those only once it runs. It returns each command's
// error, in order; a command that could not be sent fails, and the rest
// are still sent.
func (s *Session) Batch(ctx context.Context, cmds ...Command) []error {
	errs := make([]error, len(cmds))
	type sent struct {
		id int64
		ch chan reply
	}
	out := make([]sent, len(cmds))
	for i, c := range cmds {
		out[i].id, out[i].ch, errs[i] = s.conn.send(ctx, s.id, c.Method, c.Params)
	}
	for i, c := range cmds {
		if errs[i] != nil {
			continue
		}
		raw, err := s.conn.await(ctx, out[i].id, out[i].ch, c.Method)
		if err == nil {
			err = decodeResult(c.Method, raw, c.Result)
		}
		errs[i] = err
	}
	return errs
}

// Subscribe implements cdp.Session: it buffers the events of one method.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	events, cancel := s.Listen(method)
	out := make(chan jsonv2.Value)
	stop := make(chan struct{})
	var once sync.Once
	go func() {
		defer close(out)
		for ev := range events {
			select {
			case out <- ev.Params:
			case <-stop:
				return
			case <-s.done:
				return
			}
		}
	}()
	return out, func() { once.Do(func() { close(stop); cancel() }) }
}

// Listen buffers the events of the given methods, or of every method when
// none is given, in the order they arrived on the wire. The channel closes
// when cancel is called or the session ends. Events queue without bound
// until read, so the reader goroutine never waits for a subscriber.
func (s *Session) Listen(methods ...string) (<-chan Event, func()) {
	sub := &subscription{
		methods: methods,
		out:     make(chan Event),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		close(sub.out)
		return sub.out, func() {}
	}
	s.subs = append(s.subs, sub)
	s.mu.Unlock()
	go sub.pump()
	return sub.out, func() {
		s.mu.Lock()
		s.subs = slices.DeleteFunc(slices.Clone(s.subs), func(x *subscription) bool { return x == sub })
		s.mu.Unlock()
		sub.close()
	}
}

// Tap calls fn for every event of the given methods on the reader
// goroutine, before the connection reads the next message. So when any call
// on this connection returns, fn has seen every event that the browser sent
// before its reply: state kept by a tap (frames and their documents) is
// never behind a reply. fn must be quick and must not block or call the
// connection.
func (s *Session) Tap(fn func(Event), methods ...string) (cancel func()) {
	t := &tap{fn: fn, methods: methods}
	s.mu.Lock()
	s.taps = append(s.taps, t)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.taps = slices.DeleteFunc(slices.Clone(s.taps), func(x *tap) bool { return x == t })
		s.mu.Unlock()
	}
}

type tap struct {
	fn      func(Event)
	methods []string
}

func (s *Session) publish(ev Event) {
	s.mu.Lock()
	subs := s.subs
	taps := s.taps
	s.mu.Unlock()
	for _, t := range taps {
		if len(t.methods) == 0 || slices.Contains(t.methods, ev.Method) {
			t.fn(ev)
		}
	}
	for _, sub := range subs {
		if sub.wants(ev.Method) {
			sub.push(ev)
		}
	}
}

func (s *Session) addChild(ch *Session) {
	s.mu.Lock()
	s.children = append(s.children, ch)
	s.mu.Unlock()
}

func (s *Session) removeChild(ch *Session) {
	s.mu.Lock()
	s.children = slices.DeleteFunc(s.children, func(x *Session) bool { return x == ch })
	s.mu.Unlock()
}

func (s *Session) takeChildren() []*Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.children
	s.children = nil
	return ch
}

// Children returns the sessions this session attached that are still live.
func (s *Session) Children() []*Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.children)
}

// end marks the session finished and closes its subscriptions.
func (s *Session) end(why error) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = why
	subs := s.subs
	s.subs = nil
	s.mu.Unlock()
	for _, sub := range subs {
		sub.close()
	}
	close(s.done)
}

// subscription is an unbounded, order-preserving queue between the reader
// goroutine (push) and one consumer (out), moved by its own pump goroutine,
// which stops when the subscription closes.
type subscription struct {
	methods []string
	out     chan Event
	wake    chan struct{}
	stop    chan struct{}
	once    sync.Once

	mu    sync.Mutex // guards queue
	queue []Event
}

func (u *subscription) wants(method string) bool {
	return len(u.methods) == 0 || slices.Contains(u.methods, method)
}

func (u *subscription) push(ev Event) {
	u.mu.Lock()
	u.queue = append(u.queue, ev)
	u.mu.Unlock()
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

func (u *subscription) close() { u.once.Do(func() { close(u.stop) }) }

func (u *subscription) pump() {
	defer close(u.out)
	for {
		u.mu.Lock()
		batch := u.queue
		u.queue = nil
		u.mu.Unlock()
		for _, ev := range batch {
			select {
			case u.out <- ev:
			case <-u.stop:
				return
			}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-u.wake:
		case <-u.stop:
			return
		}
	}
}
