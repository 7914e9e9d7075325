// Package grid is a small WebDriver client of a Selenium Grid 4, enough
// for loupe to take a browser from the Grid and give it back: New
// Session asks for a Chromium and reads the browser's CDP endpoint
// (se:cdp) from the capabilities the Grid answers with, Delete ends the
// WebDriver session and so frees its slot (EndSession, one named by its
// id alone), Alive asks whether its
// browser still runs, and Status reads the Grid's nodes and slots.
// loupe drives the browser over CDP itself; WebDriver is only how a slot
// is taken and freed.
//
// Every request is bounded. Errors carry the Grid's own message
// (WebDriver's value.message, first line); the Grid's "no free slot"
// answer is in the chain of ErrNoSlot.
package grid

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Bounds of the requests (see NewSession for its own).
const (
	statusTimeout = 5 * time.Second
	// deleteTimeout: the node's chromedriver quits Chromium before it
	// answers, a second or two.
	deleteTimeout = 15 * time.Second
	probeTimeout  = 5 * time.Second
	// maxQueueWait bounds a new-session request that its caller gave up
	// on and this client follows through: longer than the 300 s a Grid
	// keeps a request in its queue by default (--session-request-timeout).
	maxQueueWait = 10 * time.Minute
	// maxReply bounds what is read of a reply (a status of many nodes is
	// some hundred kB).
	maxReply = 8 << 20
)

// Client is a WebDriver client of one Grid. It owns the new-session
// requests it follows through after their callers left (NewSession):
// Close ends them. Safe for concurrent use.
type Client struct {
	base *url.URL
	hc   *http.Client

	bg   context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// ParseURL checks the address of a Grid: http or https, with a host. Its
// path is kept (a Grid served below a prefix).
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("not a Grid URL: %q (want http://host:port, e.g. http://127.0.0.1:4444)", raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// New returns a client of the Grid at raw (see ParseURL).
func New(raw string) (*Client, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	bg, stop := context.WithCancel(context.Background())
	return &Client{base: u, hc: &http.Client{}, bg: bg, stop: stop}, nil
}

// URL is the Grid's address, without any password in it.
func (c *Client) URL() string { return c.base.Redacted() }

// Close stops following the new-session requests whose callers left and
// waits for their goroutines. A request the Grid still queues then stays
// in its queue until the Grid times it out.
func (c *Client) Close() {
	c.stop()
	c.wg.Wait()
	c.hc.CloseIdleConnections()
}

// Session is a WebDriver session on the Grid: one slot, one browser.
type Session struct {
	ID string
	// CDP is the browser's CDP websocket through the Grid (se:cdp, on
	// the address the Grid was reached by; see cdpEndpoint).
	CDP        string
	CDPVersion string
	Browser    string // browserName and browserVersion
	// ProcessID is the browser's process id on its node (goog:processID;
	// 0 when the node does not say).
	ProcessID int
	// Node is the URI of the node that runs it, from the Grid's /status
	// ("" when it does not list it).
	Node string

	c *Client
}

// Grid is the address of the session's Grid, without any password.
func (s *Session) Grid() string { return s.c.URL() }

// NewSession asks the Grid for a browser with these capabilities (the
// body of a New Session request: see Capabilities) and waits for it
// until ctx ends. The wait covers the Grid's queue: with every slot
// taken the Grid holds the request until a slot frees or its own
// --session-request-timeout (300 s by default) runs out, and then
// answers "session not created" (an *Error in the chain of ErrNoSlot).
// When ctx ends first, NewSession returns at once — ErrNoSlot when the
// Grid has no free slot — and the request is followed through in the
// background: the Grid would start a browser for it once a slot frees
// (a request is not taken out of its queue when its client leaves), and
// that browser's session is deleted as soon as it is given.
func (c *Client) NewSession(ctx context.Context, caps []byte) (*Session, error) {
	type result struct {
		s   *Session
		err error
	}
	res := make(chan result)
	abandoned := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		rctx, cancel := context.WithTimeout(c.bg, maxQueueWait)
		s, err := c.create(rctx, caps)
		cancel()
		select {
		case res <- result{s, err}:
		case <-abandoned:
			if s != nil {
				_ = s.Delete(context.Background())
			}
		}
	}()
	select {
	case r := <-res:
		if r.err != nil {
			return nil, r.err
		}
		sctx, cancel := context.WithTimeout(ctx, statusTimeout)
		if st, err := c.Status(sctx); err == nil {
			r.s.Node = st.NodeOf(r.s.ID)
		}
		cancel()
		return r.s, nil
	case <-ctx.Done():
		close(abandoned)
		return nil, c.gaveUp(ctx)
	}
}

// gaveUp says why a caller's wait for a browser ended: every slot taken
// (ErrNoSlot), or a Grid slow to start one.
func (c *Client) gaveUp(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	st, err := c.Status(sctx)
	if err == nil && st.Free() == 0 {
		return fmt.Errorf("%w at %s: all %d slots are taken, and the request waited in its queue until the deadline (%w); the browser the Grid may still start for it is ended at once", ErrNoSlot, c.URL(), st.Used(), ctx.Err())
	}
	return fmt.Errorf("the Grid at %s started no browser before the deadline: %w", c.URL(), ctx.Err())
}

// create is New Session: the request, its reply, the CDP endpoint. A
// session the Grid gives without one is deleted again.
func (c *Client) create(ctx context.Context, caps []byte) (*Session, error) {
	status, body, err := c.do(ctx, http.MethodPost, "/session", caps)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, parseError(status, body)
	}
	cr, err := parseCreated(body)
	if err != nil {
		return nil, err
	}
	s := &Session{ID: cr.ID, CDPVersion: cr.CDPVersion, Browser: cr.Browser, ProcessID: cr.ProcessID, c: c}
	if s.CDP, err = cdpEndpoint(c.base, cr.CDP); err != nil {
		_ = s.Delete(ctx)
		return nil, err
	}
	return s, nil
}

// Delete ends the WebDriver session: the node closes its browser and the
// slot is free. A session the Grid no longer has is deleted already.
// Bounded by its own deadline, whatever ctx's.
func (s *Session) Delete(ctx context.Context) error {
	return s.c.EndSession(context.WithoutCancel(ctx), s.ID)
}

// EndSession ends the WebDriver session id on the Grid, as Delete does:
// for a session this client did not start, such as one that a loupe
// process recorded and did not delete because it died. A session the
// Grid no longer has ("invalid session id") is ended already. Bounded by
// ctx and by the time a node takes to quit a browser.
func (c *Client) EndSession(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	status, body, err := c.do(ctx, http.MethodDelete, "/session/"+url.PathEscape(id), nil)
	if err != nil {
		return fmt.Errorf("ending WebDriver session %s: %w", id, err)
	}
	if status == http.StatusOK {
		return nil
	}
	if e := parseError(status, body); !e.gone() {
		return fmt.Errorf("ending WebDriver session %s: %w", id, e)
	}
	return nil
}

// Alive asks the node whether the session's browser still runs (its
// current window handle; the driver answers "invalid session id" once
// the browser has closed its connection). A Grid that cannot be asked
// gives an error and true: only the Grid's word makes a browser dead.
// The Grid's CDP proxy (4.21 at least) keeps the client's websocket open
// after the browser behind it died, so this is how loupe learns of it.
func (s *Session) Alive(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	status, body, err := s.c.do(ctx, http.MethodGet, "/session/"+url.PathEscape(s.ID)+"/window", nil)
	if err != nil {
		return true, err
	}
	if status == http.StatusOK {
		return true, nil
	}
	if e := parseError(status, body); e.gone() {
		return false, nil
	}
	return true, nil // "no such window": loupe closed WebDriver's tab
}

// Status reads the Grid's /status.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	ctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	status, body, err := c.do(ctx, http.MethodGet, "/status", nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, parseError(status, body)
	}
	return parseStatus(body)
}

// do sends one request below the Grid's address and reads its reply.
func (c *Client) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	u := *c.base
	u.Path += path
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		// The Grid refuses a body whose type does not name UTF-8.
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, with any password
		}
		return 0, nil, fmt.Errorf("%s %s%s: %w", method, c.URL(), path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return 0, nil, fmt.Errorf("reading the Grid's reply to %s %s: %w", method, path, err)
	}
	return resp.StatusCode, b, nil
}
