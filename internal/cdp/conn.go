package cdp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// ErrClosed is returned by calls on a connection or session that has ended:
// the browser went away, the target detached, or Close was called.
var ErrClosed = errors.New("cdp: connection closed")

// ErrSessionGone is returned by calls on a session whose target detached.
var ErrSessionGone = errors.New("cdp: session detached")

// Error is an error reply from the browser.
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitzero"`
	Method  string `json:"-"`
}

func (e *Error) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("%s: %s (%d): %s", e.Method, e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("%s: %s (%d)", e.Method, e.Message, e.Code)
}

// Event is one protocol event as it arrived, with its params undecoded.
type Event struct {
	Method string
	Params jsonv2.Value
}

// message is the envelope of every protocol message in both directions.
type message struct {
	ID        int64        `json:"id,omitzero"`
	Method    string       `json:"method,omitzero"`
	SessionID string       `json:"sessionId,omitzero"`
	Params    jsonv2.Value `json:"params,omitzero"`
	Result    jsonv2.Value `json:"result,omitzero"`
	Error     *Error       `json:"error,omitzero"`
}

type reply struct {
	result jsonv2.Value
	err    error
}

type pending struct {
	ch      chan reply // buffered to one: the reader never blocks on it
	session string
	method  string
}

// Conn is a connection to one browser endpoint. Its zero value is not
// usable; create it with [NewConn]. All methods are safe for concurrent use.
type Conn struct {
	t       Transport
	nextID  atomic.Int64
	done    chan struct{} // closed when the reader stops
	browser *Session      // the browser-level session; never nil

	// mu guards everything below it.
	mu       sync.Mutex
	pending  map[int64]pending
	sessions map[string]*Session
	err      error // why the connection ended, once done is closed
}

// NewConn starts reading from t. The returned connection owns t and its
// reader goroutine, both of which stop on Close or when t fails.
func NewConn(t Transport) *Conn {
	c := &Conn{
		t:        t,
		done:     make(chan struct{}),
		pending:  make(map[int64]pending),
		sessions: make(map[string]*Session),
	}
	c.browser = newSession(c, "", nil, TargetInfo{Type: "browser"})
	c.sessions[""] = c.browser
	go c.readLoop()
	return c
}

// Browser returns the browser-level session. It is never nil: once the
// connection has ended, calls on it fail with ErrClosed.
func (c *Conn) Browser() *Session { return c.browser }

// Session returns the live session with the given id, or nil.
func (c *Conn) Session(id string) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[id]
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended, or nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection and waits for its reader to stop.
func (c *Conn) Close() error {
	err := c.t.Close()
	<-c.done
	return err
}

func (c *Conn) readLoop() {
	var err error
	for {
		var b []byte
		b, err = c.t.Read()
		if err != nil {
			break
		}
		var m message
		if uerr := jsonv2.Unmarshal(b, &m); uerr != nil {
			// One malformed frame must not take the connection down.
			continue
		}
		if m.ID != 0 {
			c.deliver(m)
			continue
		}
		if m.Method != "" {
			c.dispatch(m)
		}
	}
	c.shutdown(fmt.Errorf("%w: %w", ErrClosed, err))
}

func (c *Conn) deliver(m message) {
	c.mu.Lock()
	p, ok := c.pending[m.ID]
	delete(c.pending, m.ID)
	c.mu.Unlock()
	if !ok {
		return // the caller gave up
	}
	if m.Error != nil {
		m.Error.Method = p.method
		p.ch <- reply{err: m.Error}
		return
	}
	p.ch <- reply{result: m.Result}
}

// dispatch updates the session tree for attach and detach events, then hands
// the event to the subscribers of the session that carried it.
func (c *Conn) dispatch(m message) {
	c.mu.Lock()
	s := c.sessions[m.SessionID]
	c.mu.Unlock()
	if s == nil {
		return
	}
	switch m.Method {
	case "Target.attachedToTarget":
		var ev struct {
			SessionID  string     `json:"sessionId"`
			TargetInfo TargetInfo `json:"targetInfo"`
			Waiting    bool       `json:"waitingForDebugger"`
		}
		if jsonv2.Unmarshal(m.Params, &ev) == nil && ev.SessionID != "" {
			child := newSession(c, ev.SessionID, s, ev.TargetInfo)
			child.waiting = ev.Waiting
			c.mu.Lock()
			if _, dup := c.sessions[ev.SessionID]; !dup {
				c.sessions[ev.SessionID] = child
				s.addChild(child)
			}
			c.mu.Unlock()
		}
	case "Target.detachedFromTarget":
		var ev struct {
			SessionID string `json:"sessionId"`
		}
		if jsonv2.Unmarshal(m.Params, &ev) == nil {
			defer c.dropSession(ev.SessionID, ErrSessionGone)
		}
	}
	s.publish(Event{Method: m.Method, Params: m.Params})
}

// dropSession ends the session and all its descendants.
func (c *Conn) dropSession(id string, why error) {
	c.mu.Lock()
	s := c.sessions[id]
	if s == nil || id == "" {
		c.mu.Unlock()
		return
	}
	var gone []*Session
	var walk func(*Session)
	walk = func(s *Session) {
		gone = append(gone, s)
		delete(c.sessions, s.id)
		for _, ch := range s.takeChildren() {
			walk(ch)
		}
	}
	walk(s)
	if s.parent != nil {
		s.parent.removeChild(s)
	}
	ids := make(map[string]bool, len(gone))
	for _, g := range gone {
		ids[g.id] = true
	}
	var failed []pending
	for id, p := range c.pending {
		if ids[p.session] {
			failed = append(failed, p)
			delete(c.pending, id)
		}
	}
	c.mu.Unlock()
	// End the sessions first, so a caller whose call fails already sees
	// the session as ended.
	for _, g := range gone {
		g.end(why)
	}
	for _, p := range failed {
		p.ch <- reply{err: fmt.Errorf("%s: %w", p.method, why)}
	}
}

func (c *Conn) shutdown(err error) {
	c.mu.Lock()
	c.err = err
	sessions := c.sessions
	c.sessions = map[string]*Session{}
	failed := c.pending
	c.pending = map[int64]pending{}
	c.mu.Unlock()
	for _, s := range sessions {
		s.end(err)
	}
	for _, p := range failed {
		p.ch <- reply{err: fmt.Errorf("%s: %w", p.method, err)}
	}
	close(c.done)
}

// call sends one command on behalf of a session and waits for its reply.
func (c *Conn) call(ctx context.Context, sessionID, method string, params any) (jsonv2.Value, error) {
	id, ch, err := c.send(ctx, sessionID, method, params)
	if err != nil {
		return nil, err
	}
	return c.await(ctx, id, ch, method)
}

// send writes one command on behalf of a session; await waits for its
// reply. Commands sent one after another from one goroutine reach the
// browser in that order.
func (c *Conn) send(ctx context.Context, sessionID, method string, params any) (int64, chan reply, error) {
	if params == nil {
		params = struct{}{}
	}
	raw, err := jsonv2.Marshal(params)
	if err != nil {
		return 0, nil, fmt.Errorf("cdp: encoding %s: %w", method, err)
	}
	id := c.nextID.Add(1)
	msg, err := jsonv2.Marshal(message{ID: id, Method: method, SessionID: sessionID, Params: raw})
	if err != nil {
		return 0, nil, fmt.Errorf("cdp: encoding %s: %w", method, err)
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return 0, nil, fmt.Errorf("%s: %w", method, err)
	}
	if _, ok := c.sessions[sessionID]; !ok {
		c.mu.Unlock()
		return 0, nil, fmt.Errorf("%s: %w", method, ErrSessionGone)
	}
	c.pending[id] = pending{ch: ch, session: sessionID, method: method}
	c.mu.Unlock()

	if err := c.t.Write(ctx, msg); err != nil {
		c.forget(id)
		return 0, nil, err
	}
	return id, ch, nil
}

// await waits for the reply to a command send wrote.
func (c *Conn) await(ctx context.Context, id int64, ch chan reply, method string) (jsonv2.Value, error) {
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}
