// Package engine is the core of loupe's browser engine: it launches or
// attaches to one browser and keeps its surfaces (tabs and the frames in
// them) and what kind each one is, each frame's session, documents and
// execution contexts, the page agent's worlds, the ref tables, and the
// session's console, network and dialog records. The jobs done on a
// surface are the packages above it, each calling only downward: surface
// (listing, describing and switching surfaces), capture (snapshots,
// locators, ref resolution, queries), action (input, reads, screenshots),
// nav (navigation and waits), download (downloads), status (the
// connection's transport and features, the session's status) and person
// (a person's own input, watched through a session hook). It knows nothing
// of front ends, policy or the ledger; the executor calls it.
//
// Concurrency: a Browser may be used from many goroutines. Operations on one
// tab are serialised by the tab; operations on different tabs run in
// parallel. Protocol events that describe frames and documents are applied
// on the connection's reader goroutine (cdp.Session.Tap), so when any call
// returns, the tab's view of its frames already includes every event sent
// before the reply.
package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/idspace"
	"github.com/loupe-dev/loupe/internal/engine/popups"
)

// LaunchOptions configures a browser loupe starts itself.
type LaunchOptions = chromium.LaunchOptions

// Browser is one browser session: a launched or attached browser and the
// tabs loupe tracks in it.
type Browser struct {
	conn     *cdp.Conn
	proc     *chromium.Browser // nil when attached
	endpoint string            // websocket URL when attached
	product  string
	ids      *IDs          // surface ids and ref numbers, the session's
	first    idspace.Start // where this browser's numbering began
	events   *eventlog.Log
	popups   *popups.Guard // nil when the browser blocks popups itself
	binary   string        // the launched executable ("" when attached)
	gone     chan struct{} // closed when a launched browser has gone (nil when attached)

	bg    context.Context    // the browser's background goroutines run in it
	stop  context.CancelFunc // ends the browser's background goroutines
	untap func()             // removes the target tap
	wg    sync.WaitGroup

	// mu guards the fields below.
	mu          sync.Mutex
	byTarget    map[string]*Surface
	bySurface   map[string]*Surface
	tombs       map[string]bool // surface ids of closed tabs
	order       []string        // live surface ids, in the order they appeared
	electron    bool            // the browser is an Electron app
	classes     map[string]Classification
	classifier  Classifier
	closing     bool                       // shutdown has begun: no new goroutines
	waiters     map[string][]chan *Surface // target id → callers waiting for its tab
	front       map[string]string          // opener group → the page in front (front.go)
	onCrash     CrashHandler               // set by WithCrashHandler; read-only after start
	onTab       func(TabEvent)             // set by WithTabEvents; read-only after start
	hooks       []SessionHook              // set by WithSessionHook; read-only after start
	workerHooks []WorkerHook               // set by WithWorkerHook; read-only after start
	kept        map[string]any             // see Kept
}

// Launch starts Chromium and returns the browser once its first tab is
// ready.
func Launch(ctx context.Context, o LaunchOptions, opts ...Option) (*Browser, error) {
	proc, err := chromium.Launch(ctx, o)
	if err != nil {
		return nil, apitype.Wrap(apitype.BrowserStart, err, "starting Chromium: %v", err)
	}
	if chromium.IsHeadlessShell(o.Binary) { // no popup blocker of its own
		opts = append(opts[:len(opts):len(opts)], func(b *Browser) { b.popups = &popups.Guard{} })
	}
	b, err := start(ctx, proc.Conn, &proc.Version, opts)
	if err != nil {
		_ = proc.Kill()
		return nil, err
	}
	b.proc = proc
	b.binary = o.Binary
	// The browser is gone when its connection ends or its process exits,
	// whichever is seen first: a killed browser must not look alive to
	// the next caller while its pipe drains.
	b.gone = make(chan struct{})
	go func() {
		select {
		case <-proc.Conn.Done():
		case <-proc.Exited():
		}
		close(b.gone)
	}()
	return b, nil
}

// Attach connects to a browser that is already running (a Chromium started
// with --remote-debugging-port, an Electron app, a remote browser). Closing
// the session leaves that browser running.
func Attach(ctx context.Context, endpoint string, opts ...Option) (*Browser, error) {
	conn, ws, err := chromium.Attach(ctx, endpoint)
	if err != nil {
		return nil, apitype.Wrap(apitype.BrowserStart, err, "attaching to %s: %v", endpoint, err)
	}
	b, err := start(ctx, conn, nil, opts)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	b.endpoint = ws
	return b, nil
}

func start(ctx context.Context, conn *cdp.Conn, version *chromium.Version, opts []Option) (*Browser, error) {
	bg, stop := context.WithCancel(context.Background())
	b := &Browser{
		conn: conn, bg: bg, stop: stop, events: eventlog.New(), ids: &IDs{},
		byTarget: map[string]*Surface{}, bySurface: map[string]*Surface{}, tombs: map[string]bool{},
		waiters: map[string][]chan *Surface{}, front: map[string]string{},
	}
	for _, o := range opts {
		o(b)
	}
	b.first = b.ids.Start()
	bs := conn.Browser()
	// Targets are tracked by a tap: a page is in the table before any
	// reply that follows its attach, so the auto-attach reply below finds
	// every existing page there.
	untap := bs.Tap(func(ev cdp.Event) { b.onTargetEvent(bg, ev) }, "Target.attachedToTarget", "Target.detachedFromTarget",
		"Target.targetInfoChanged", "Target.targetDestroyed", "Target.targetCrashed")
	b.untap = untap
	// Startup is the browser's busiest time: every call waits, so the
	// independent ones go out together.
	pages := target.Filter{{Type: "page"}}
	var v chromium.Version
	errs := make([]error, 3)
	var wg sync.WaitGroup
	if version != nil {
		v = *version // asked by the launcher already
	} else {
		wg.Go(func() { errs[0] = bs.Call(ctx, "Browser.getVersion", nil, &v) })
	}
	wg.Go(func() {
		_, errs[1] = cdpproto.Call(ctx, bs, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true, Filter: pages})
	})
	// Auto-attach pauses new pages until loupe has subscribed to them, so
	// no early event is lost; existing pages attach before the reply.
	wg.Go(func() {
		_, errs[2] = cdpproto.Call(ctx, bs, target.SetAutoAttach, target.SetAutoAttachParams{
			AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: ptr(true), Filter: pages,
		})
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.shutdown()
		return nil, err
	}
	b.product = v.Product
	b.electron = strings.Contains(v.UserAgent, "Electron/")
	// Wait for the pages that exist now to be set up.
	b.mu.Lock()
	existing := slices.Clone(b.order)
	b.mu.Unlock()
	for _, id := range existing {
		b.mu.Lock()
		t := b.bySurface[id]
		b.mu.Unlock()
		if t == nil {
			continue
		}
		if err := t.wait(ctx); err != nil && !errors.Is(err, ErrTabClosed) {
			b.shutdown()
			return nil, err
		}
	}
	return b, nil
}

func ptr[T any](v T) *T { return &v }

// Product is the browser's name and version, e.g. "HeadlessChrome/156.0…".
func (b *Browser) Product() string { return b.product }

// Launched reports whether loupe started this browser (as opposed to
// attaching to it).
func (b *Browser) Launched() bool { return b.proc != nil }

// Binary is the executable of a launched browser ("" when attached):
// which build runs, since the full browser and the headless shell both
// call themselves HeadlessChrome.
func (b *Browser) Binary() string { return b.binary }

// Endpoint is the websocket URL of an attached browser ("" when launched).
func (b *Browser) Endpoint() string { return b.endpoint }

// PID is the launched browser's process id, 0 when attached.
func (b *Browser) PID() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.PID
}

// Done is closed when the connection to the browser has ended.
func (b *Browser) Done() <-chan struct{} {
	if b.gone != nil {
		return b.gone
	}
	return b.conn.Done()
}

// Close ends the session. A launched browser is closed and its whole
// process tree ended; an attached one is only disconnected.
func (b *Browser) Close(ctx context.Context) error {
	var err error
	if b.proc != nil {
		err = b.proc.Stop(ctx)
	} else {
		err = b.conn.Close()
	}
	b.shutdown()
	return err
}

func (b *Browser) shutdown() {
	b.stop()
	if b.untap != nil {
		b.untap()
	}
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	_ = b.conn.Close()
	b.wg.Wait()
}

type targetEvent struct {
	SessionID  string     `json:"sessionId"`
	TargetID   string     `json:"targetId"`
	TargetInfo targetInfo `json:"targetInfo"`
	Waiting    bool       `json:"waitingForDebugger"`
}

type targetInfo struct {
	TargetID      string `json:"targetId"`
	Type          string `json:"type"`
	Title         string `json:"title"`
	URL           string `json:"url"`
	OpenerID      string `json:"openerId"`
	ParentFrameID string `json:"parentFrameId"`
	// BrowserContextID is the browser context (cookie jar and storage)
	// the page lives in.
	BrowserContextID string `json:"browserContextId"`
}

// onTargetEvent keeps the page table. It is a tap on the browser session
// (the reader goroutine): it only records, and page setup runs on its own
// goroutine.
func (b *Browser) onTargetEvent(ctx context.Context, ev cdp.Event) {
	var e targetEvent
	if err := jsonv2.Unmarshal(ev.Params, &e); err != nil {
		return
	}
	switch ev.Method {
	case "Target.attachedToTarget":
		if e.TargetInfo.Type != "page" {
			return
		}
		sess := b.conn.Session(e.SessionID)
		if sess == nil {
			return
		}
		if o := e.TargetInfo.OpenerID; o != "" && b.popups != nil {
			b.popups.Attached(o, func(allow bool) { b.decidePopup(ctx, sess, e, allow) })
			return
		}
		b.adopt(ctx, sess, e)
	case "Target.detachedFromTarget", "Target.targetDestroyed":
		b.removeTab(e.TargetID)
	case "Target.targetCrashed":
		// The page's session reports it too (Inspector.targetCrashed);
		// whichever comes first counts (see crash.go).
		b.mu.Lock()
		t := b.byTarget[e.TargetID]
		b.mu.Unlock()
		if t != nil {
			t.crashed(t.sess)
		}
	case "Target.targetInfoChanged":
		b.mu.Lock()
		t := b.byTarget[e.TargetInfo.TargetID]
		b.mu.Unlock()
		if t != nil && t.setInfo(e.TargetInfo.Title, e.TargetInfo.URL) {
			b.tellTab(TabChanged, t, e.TargetInfo.URL, e.TargetInfo.Title)
		}
	}
}

// adopt makes a page that attached a tab, and sets it up.
func (b *Browser) adopt(ctx context.Context, sess *cdp.Session, e targetEvent) {
	if t, isNew := b.addTab(sess, e.TargetInfo); isNew {
		b.tellTab(TabOpened, t, e.TargetInfo.URL, e.TargetInfo.Title)
		go func() {
			defer b.wg.Done()
			t.setup(ctx, e.Waiting)
		}()
	}
}

// addTab records a page that attached. When it is new, the caller must
// start its setup: addTab has counted that goroutine in b.wg (under b.mu,
// so shutdown never waits while one is being added).
func (b *Browser) addTab(sess *cdp.Session, info targetInfo) (*Surface, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.byTarget[info.TargetID]; ok || b.closing {
		return t, false
	}
	b.wg.Add(1)
	t := newSurface(b, b.newSurfaceID(), info, sess)
	b.byTarget[info.TargetID] = t
	b.bySurface[t.ID] = t
	b.order = append(b.order, t.ID)
	b.front[b.groupOf(info.TargetID)] = info.TargetID // a new page is shown (front.go)
	for _, ch := range b.waiters[info.TargetID] {
		ch <- t
	}
	delete(b.waiters, info.TargetID)
	return t, true
}

// newSurfaceID returns a surface id never used before in this browser
// session. It takes no lock, so frame taps can call it.
func (b *Browser) newSurfaceID() string {
	return b.ids.NextSurface()
}

func (b *Browser) removeTab(targetID string) {
	b.mu.Lock()
	t := b.byTarget[targetID]
	if t != nil {
		delete(b.byTarget, targetID)
		delete(b.bySurface, t.ID)
		for g, id := range b.front {
			if id == targetID || g == targetID {
				delete(b.front, g)
			}
		}
		b.tombs[t.ID] = true
		b.order = slices.DeleteFunc(b.order, func(id string) bool { return id == t.ID })
		// The page's frames close with it.
		t.mu.Lock()
		for _, f := range t.frameSurf {
			b.tombs[f.ID] = true
		}
		for id := range t.frameTombs {
			b.tombs[id] = true
		}
		t.mu.Unlock()
	}
	b.mu.Unlock()
	b.popups.Forget(targetID)
	if t != nil {
		t.markClosed()
		title, url := t.info()
		b.tellTab(TabClosed, t, url, title)
	}
}

// SurfaceForTarget waits until the tab of a page target has attached and is
// set up (for a caller that has just created the target).
func (b *Browser) SurfaceForTarget(ctx context.Context, targetID string) (*Surface, error) {
	ch := make(chan *Surface, 1)
	b.mu.Lock()
	if t, ok := b.byTarget[targetID]; ok {
		ch <- t
	} else {
		b.waiters[targetID] = append(b.waiters[targetID], ch)
	}
	b.mu.Unlock()
	select {
	case t := <-ch:
		return t, t.wait(ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-b.conn.Done():
		return nil, b.conn.Err()
	}
}

// Surface returns the surface with the given id (a tab or a frame in one). The
// browser has no current surface of its own: each caller keeps its own
// (see package sessions), and "" asks for the first tab, for a caller
// that has none yet. A surface that has closed is SURFACE_CLOSED, with
// the live surfaces in the hint (loupe never picks another one by
// itself); an id never seen is SURFACE_NOT_FOUND.
func (b *Browser) Surface(ctx context.Context, id string) (*Surface, error) {
	b.mu.Lock()
	if id == "" && len(b.order) > 0 {
		id = b.order[0]
	}
	t, closed := b.lookup(id)
	live := b.liveIDs()
	b.mu.Unlock()
	switch {
	case t != nil:
		return t, t.wait(ctx)
	case id == "" && len(live) == 0:
		return nil, apitype.Errorf(apitype.SurfaceClosed, "no tab is open").
			Fix("open one ({1}) or open a URL in a new tab ({2})", apitype.Step{Op: "tab new"}, apitype.Step{Op: "open", Args: map[string]string{"new_tab": "true"}})
	case id == "" || closed:
		e := apitype.Errorf(apitype.SurfaceClosed, "surface %s has closed", orNone(id))
		if len(live) > 0 {
			e.Fix("live surfaces: "+strings.Join(live, ", ")+"; switch to one ({1})", apitype.Step{Op: "switch"})
		} else {
			e.Fix("no tab is open; open one ({1}) or open a URL in a new tab ({2})", apitype.Step{Op: "tab new"},
				apitype.Step{Op: "open", Args: map[string]string{"new_tab": "true"}})
		}
		return nil, e
	case b.first.SurfaceBefore(id):
		e := apitype.Errorf(apitype.SurfaceClosed, "surface %s was in a browser of this session that has since gone", id)
		if len(live) > 0 {
			e.Fix("live surfaces: "+strings.Join(live, ", ")+"; switch to one ({1})", apitype.Step{Op: "switch"})
		}
		return nil, e
	default:
		return nil, apitype.Errorf(apitype.SurfaceNotFound, "no surface %q was ever seen in this session", id)
	}
}

// lookup finds a live surface by id, or reports it closed. Caller holds
// b.mu.
func (b *Browser) lookup(id string) (*Surface, bool) {
	if t := b.bySurface[id]; t != nil {
		return t, false
	}
	if b.tombs[id] {
		return nil, true
	}
	for _, t := range b.byTarget {
		t.mu.Lock()
		closed := t.frameTombs[id]
		var found *Surface
		for _, f := range t.frameSurf {
			if f.ID == id {
				found = f
			}
		}
		t.mu.Unlock()
		if found != nil || closed {
			return found, closed
		}
	}
	return nil, false
}

// liveIDs lists the live surfaces' ids. Caller holds b.mu.
func (b *Browser) liveIDs() []string {
	var out []string
	for _, id := range b.order {
		out = append(out, id)
		for _, f := range b.bySurface[id].FrameSurfaces() {
			out = append(out, f.ID)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Pages lists the live page roots (tabs, windows, views, webviews) in the
// order they appeared.
func (b *Browser) Pages() []*Surface {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]*Surface, 0, len(b.order))
	for _, id := range b.order {
		out = append(out, b.bySurface[id])
	}
	return out
}

// TabCount is the number of live tabs.
// Kept returns what the packages above keep with this browser under key,
// made by mk the first time (a partition table, say): state that lives and
// dies with the browser, not in globals.
func (b *Browser) Kept(key string, mk func() any) any {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.kept[key]
	if !ok {
		if b.kept == nil {
			b.kept = map[string]any{}
		}
		v = mk()
		b.kept[key] = v
	}
	return v
}

func (b *Browser) TabCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.order)
}
