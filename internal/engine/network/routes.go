// Package network mocks, blocks and rewrites the requests of a tab (its
// routes, through the protocol's Fetch domain) and captures its traffic
// as a HAR 1.2 log (from the Network domain's events).
//
// Routes belong to a tab: its page and every frame in it, out-of-process
// frames included, each of which has a protocol session of its own. The
// engine core knows nothing of them: a session hook (Option) sets up
// every session of a page as it attaches, while it is still paused, so a
// frame that appears later is routed from its first request. A tab with
// no route has Fetch off altogether — an empty table costs a page load
// nothing (BenchmarkPageLoad) — and the first route turns it on in every
// live session of the tab, the last one removed turns it off.
//
// Workers: the engine attaches the dedicated workers of a tab's documents
// (engine.WithWorkerHook), and their sessions are set up as the frames'
// are, so their requests are routed and captured with the tab's. Service
// workers and shared workers are targets of their own that no tab owns;
// loupe does not attach them, so the requests they make themselves are
// neither routed nor captured (a page's request a service worker answers
// is seen as the page made it).
package network

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/routespec"
)

// Bounds of a tab's routes.
const (
	// MaxBody bounds a fulfilled response's body.
	MaxBody = 8 << 20
	// MaxRoutes bounds a tab's route table.
	MaxRoutes = 100
	// MaxHeaders bounds the headers one route sets.
	MaxHeaders = 64
)

// answerTimeout bounds the answer to one paused request: the page waits
// for it, so a browser that does not reply must not hold the handler.
const answerTimeout = 10 * time.Second

// Action is what a route does with the requests it matches.
type Action string

// The actions.
const (
	// Fulfill answers with the route's status, headers and body; no
	// request reaches the server.
	Fulfill Action = "fulfill"
	// Abort fails the request as a blocked one (net::ERR_BLOCKED_BY_CLIENT).
	Abort Action = "abort"
	// Continue sends the request on with the route's headers set (an
	// empty value removes the header).
	Continue Action = "continue"
)

// Header is one header a route sets.
type Header = routespec.Header

// Route is one entry of a tab's route table. Routes are not changed once
// set: setting one again for the same pattern replaces it.
type Route struct {
	Pattern string
	Action  Action
	// Status is a fulfilled response's status (200 when 0).
	Status  int
	Headers []Header
	Body    []byte
	// Source names where the body came from (a file's name), for lists.
	Source string

	glob *routespec.Glob
	hits atomic.Int64
}

// RouteInfo is a route as listed: what it does and how many requests it
// has answered.
type RouteInfo struct {
	Pattern   string
	Action    Action
	Status    int
	Headers   []Header
	BodyBytes int
	Source    string
	Hits      int64
}

// Net is a browser's routes and captures, by tab. It is kept with the
// browser (engine.Browser.Kept): it lives and dies with it.
type Net struct {
	mu    sync.Mutex
	pages map[string]*pageNet // by the page's surface id
	// capturing counts the tabs with a capture running, so that the
	// Network taps of the others return at once.
	capturing atomic.Int32
}

// pageNet is one tab's routes, sessions and capture.
type pageNet struct {
	page *engine.Surface
	// apply serialises route changes from their table edit through the
	// Fetch calls they send (taken before Net.mu, never inside it).
	apply sync.Mutex
	// The fields below are guarded by Net.mu.
	routes   []*Route         // oldest first; the newest match wins
	sessions []engine.Session // the tab's protocol sessions, as they attached
	capture  *capture         // nil when no capture runs
}

// Of is the browser's routes and captures.
func Of(b *engine.Browser) *Net {
	return b.Kept("network.routes", func() any { return &Net{pages: map[string]*pageNet{}} }).(*Net)
}

// Option sets up every page session of the browser for routes and
// capture: it taps the session's paused requests and Network events, and
// turns Fetch on in it when its tab has routes.
func Option() engine.Option {
	return func(b *engine.Browser) {
		engine.WithSessionHook(setup)(b)
		engine.WithWorkerHook(setupWorker)(b)
	}
}

// setupWorker sets a dedicated worker's session up as setup does a
// page's, and turns Network on in it (the core does not), so its traffic
// is captured with its tab's.
func setupWorker(page *engine.Surface, s engine.Session) []engine.SetupCall {
	return append([]engine.SetupCall{{Method: "Network.enable"}}, setup(page, s)...)
}

// fetchPatterns intercepts every request before it is sent; the route
// table's own patterns decide (the protocol's wildcards are not
// Playwright's).
var fetchPatterns = map[string]any{"patterns": []map[string]string{{"urlPattern": "*", "requestStage": "Request"}}}

func setup(page *engine.Surface, s engine.Session) []engine.SetupCall {
	n := Of(page.Browser())
	n.mu.Lock()
	p := n.pageLocked(page)
	p.sessions = append(slices.DeleteFunc(p.sessions, ended), s)
	routed := len(p.routes) > 0
	n.mu.Unlock()
	s.Tap(func(ev cdp.Event) { n.paused(p, s, ev) }, "Fetch.requestPaused")
	s.Tap(func(ev cdp.Event) { n.traffic(p, s, ev) }, trafficMethods...)
	if routed {
		return []engine.SetupCall{{Method: "Fetch.enable", Params: fetchPatterns}}
	}
	return nil
}

// ended reports whether a session has ended.
func ended(s engine.Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// pageLocked returns the tab's entry, making it the first time; entries
// of closed tabs go as a new one is made. Caller holds n.mu.
func (n *Net) pageLocked(page *engine.Surface) *pageNet {
	if p := n.pages[page.ID]; p != nil {
		return p
	}
	for id, p := range n.pages {
		select {
		case <-p.page.Closed():
			if p.capture != nil {
				n.capturing.Add(-1)
			}
			delete(n.pages, id)
		default:
		}
	}
	p := &pageNet{page: page}
	n.pages[page.ID] = p
	return p
}

// NewRoute checks a route and makes it ready to set.
func NewRoute(pattern string, action Action, status int, headers []Header, body []byte, source string) (*Route, error) {
	g, err := routespec.Compile(pattern)
	if err != nil {
		return nil, err
	}
	switch {
	case action != Fulfill && action != Abort && action != Continue:
		return nil, fmt.Errorf("route action %q: want fulfill, abort or continue", action)
	case action != Fulfill && (status != 0 || len(body) > 0):
		return nil, fmt.Errorf("a status and a body are for fulfill only")
	case action == Abort && len(headers) > 0:
		return nil, fmt.Errorf("an aborted request has no headers to set")
	case action == Continue && len(headers) == 0:
		return nil, fmt.Errorf("continue sends the request on with headers set: give at least one")
	case status != 0 && (status < 100 || status > 599):
		return nil, fmt.Errorf("status %d: want 100 to 599", status)
	case len(body) > MaxBody:
		return nil, fmt.Errorf("a body of %d bytes: at most %d MiB", len(body), MaxBody>>20)
	case len(headers) > MaxHeaders:
		return nil, fmt.Errorf("%d headers: at most %d", len(headers), MaxHeaders)
	}
	for _, h := range headers {
		if err := routespec.CheckHeader(h.Name, h.Value); err != nil {
			return nil, err
		}
	}
	return &Route{Pattern: pattern, Action: action, Status: status, Headers: headers, Body: body, Source: source, glob: g}, nil
}

// Set adds a route to the tab's table, replacing one of the same
// pattern; the newest route that matches a request answers it. The first
// route turns Fetch on in every session of the tab.
func (n *Net) Set(ctx context.Context, page *engine.Surface, r *Route) error {
	return n.change(ctx, page, func(p *pageNet) error {
		i := slices.IndexFunc(p.routes, func(o *Route) bool { return o.Pattern == r.Pattern })
		if i < 0 && len(p.routes) >= MaxRoutes {
			return fmt.Errorf("the tab has %d routes, the most it may: clear some first", MaxRoutes)
		}
		if i >= 0 {
			p.routes = slices.Delete(p.routes, i, i+1)
		}
		p.routes = append(p.routes, r)
		return nil
	})
}

// ErrNoRoute means a clear named a pattern the tab has no route for.
var ErrNoRoute = errors.New("no route for that pattern")

// Clear removes the tab's route of that pattern, or every route when
// pattern is "", and returns how many went. The last one turns Fetch off.
func (n *Net) Clear(ctx context.Context, page *engine.Surface, pattern string) (int, error) {
	removed := 0
	err := n.change(ctx, page, func(p *pageNet) error {
		before := len(p.routes)
		p.routes = slices.DeleteFunc(p.routes, func(r *Route) bool { return pattern == "" || r.Pattern == pattern })
		removed = before - len(p.routes)
		if pattern != "" && removed == 0 {
			return ErrNoRoute
		}
		return nil
	})
	return removed, err
}

// Routes lists the tab's routes, oldest first.
func (n *Net) Routes(page *engine.Surface) []RouteInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.pages[page.PageID()]
	if p == nil {
		return nil
	}
	out := make([]RouteInfo, 0, len(p.routes))
	for _, r := range p.routes {
		out = append(out, RouteInfo{Pattern: r.Pattern, Action: r.Action, Status: r.status(), Headers: r.Headers, BodyBytes: len(r.Body),
			Source: r.Source, Hits: r.hits.Load()})
	}
	return out
}

// change edits the tab's table and, when it goes from empty to not or
// back, turns Fetch on or off in every live session of the tab. A session
// that attaches meanwhile reads the table under the same lock as it is
// added to the list (setup), so it is either in the list the calls go to
// or has seen the new table.
func (n *Net) change(ctx context.Context, page *engine.Surface, edit func(p *pageNet) error) error {
	tab, err := TabOf(ctx, page)
	if err != nil {
		return err
	}
	n.mu.Lock()
	p := n.pageLocked(tab)
	n.mu.Unlock()
	p.apply.Lock()
	defer p.apply.Unlock()
	n.mu.Lock()
	was := len(p.routes) > 0
	if err := edit(p); err != nil {
		n.mu.Unlock()
		return err
	}
	now := len(p.routes) > 0
	p.sessions = slices.DeleteFunc(p.sessions, ended)
	sessions := slices.Clone(p.sessions)
	n.mu.Unlock()
	if was == now {
		return nil
	}
	method, params := "Fetch.disable", any(nil)
	if now {
		method, params = "Fetch.enable", fetchPatterns
	}
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			if err := s.Call(ctx, method, params, nil); err != nil && !ended(s) {
				errs[i] = fmt.Errorf("%s: %w", method, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// TabOf is the tab a surface is in (itself for a tab): routes and
// captures are the whole tab's, its frames' included.
func TabOf(ctx context.Context, t *engine.Surface) (*engine.Surface, error) {
	if !t.IsFrame() {
		return t, nil
	}
	return t.Browser().Surface(ctx, t.PageID())
}

func (r *Route) status() int {
	if r.Action == Fulfill && r.Status == 0 {
		return 200
	}
	return r.Status
}

// pausedRequest is the part of Fetch.requestPaused a route needs.
type pausedRequest struct {
	RequestID string `json:"requestId"`
	Request   struct {
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"request"`
}

// paused hands a paused request to a goroutine of the browser's, which
// answers it (a tap may not call the connection).
func (n *Net) paused(p *pageNet, s engine.Session, ev cdp.Event) {
	var e pausedRequest
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.RequestID == "" {
		return
	}
	p.page.Browser().Go(func(ctx context.Context) { n.answer(ctx, p, s, &e) })
}

// answer answers a paused request by the tab's newest route that matches
// its URL, and sends it on unchanged when none does (a session whose
// Fetch was turned on as the last route went). Every paused request gets
// an answer, or the page waits for it forever: an answer the browser
// refuses falls back to failing the request.
func (n *Net) answer(ctx context.Context, p *pageNet, s engine.Session, e *pausedRequest) {
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	n.mu.Lock()
	var r *Route
	for i := len(p.routes) - 1; i >= 0; i-- {
		if p.routes[i].glob.Match(e.Request.URL) {
			r = p.routes[i]
			break
		}
	}
	n.mu.Unlock()
	if r == nil {
		_ = s.Call(ctx, "Fetch.continueRequest", map[string]any{"requestId": e.RequestID}, nil)
		return
	}
	r.hits.Add(1)
	var err error
	switch r.Action {
	case Fulfill:
		headers := make([]map[string]string, 0, len(r.Headers))
		for _, h := range r.Headers {
			headers = append(headers, map[string]string{"name": h.Name, "value": h.Value})
		}
		err = s.Call(ctx, "Fetch.fulfillRequest", map[string]any{
			"requestId": e.RequestID, "responseCode": r.status(), "responseHeaders": headers,
			"body": base64.StdEncoding.EncodeToString(r.Body),
		}, nil)
	case Abort:
		err = s.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": e.RequestID, "errorReason": "BlockedByClient"}, nil)
	case Continue:
		err = s.Call(ctx, "Fetch.continueRequest", map[string]any{"requestId": e.RequestID, "headers": mergeHeaders(e.Request.Headers, r.Headers)}, nil)
	}
	if err != nil && ctx.Err() == nil && !ended(s) && r.Action != Abort {
		_ = s.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": e.RequestID, "errorReason": "Failed"}, nil)
	}
}

// mergeHeaders is a request's headers with a route's set: a route's
// header replaces the request's of the same name (in any case), and one
// with an empty value removes it.
func mergeHeaders(req map[string]string, set []Header) []map[string]string {
	out := make([]map[string]string, 0, len(req)+len(set))
	names := make([]string, 0, len(req))
	for k := range req {
		names = append(names, k)
	}
	slices.Sort(names) // a stable order, for the server and for tests
	for _, k := range names {
		if !slices.ContainsFunc(set, func(h Header) bool { return strings.EqualFold(h.Name, k) }) {
			out = append(out, map[string]string{"name": k, "value": req[k]})
		}
	}
	for _, h := range set {
		if h.Value != "" {
			out = append(out, map[string]string{"name": h.Name, "value": h.Value})
		}
	}
	return out
}
