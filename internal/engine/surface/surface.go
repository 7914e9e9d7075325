package engine

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/browser"
	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// Surface kinds. A kind is claimed only when the transport knows it.
const (
	KindTab             = "tab"              // a Chromium page target
	KindWindow          = "window"           // an Electron BrowserWindow's page
	KindWebContentsView = "webcontents_view" // an Electron WebContentsView
	KindWebview         = "webview"          // an Electron <webview> guest
	KindFrame           = "frame"            // an iframe, in or out of process
	KindOther           = "other"            // a renderer loupe cannot classify
)

// Surface describes one surface. Its JSON is the surface descriptor of the
// design (field names included).
type Surface struct {
	ID             string       `json:"id"`
	Kind           string       `json:"kind"`
	ParentID       string       `json:"parentId,omitempty"`
	Title          string       `json:"title,omitempty"`
	URL            string       `json:"url,omitempty"`
	Capabilities   Capabilities `json:"capabilities"`
	OriginRelation string       `json:"originRelation,omitempty"`
	// Crashed is set on a page root whose renderer has crashed (its
	// frames are gone, nothing can be done in it until RecoverCrash).
	Crashed bool `json:"crashed,omitempty"`
}

// Capabilities are what loupe can really do on a surface now.
type Capabilities struct {
	Snapshot     bool `json:"snapshot"`
	Interaction  bool `json:"interaction"`
	RendererEval bool `json:"rendererEval"`
}

// Classification is what the Electron main process says about one page
// target: its kind and, for a webview guest, its host's target id.
type Classification struct {
	Kind           string
	ParentTargetID string
}

// Classifier tells page targets' kinds from outside knowledge (an Electron
// main process's metadata), keyed by CDP target id.
type Classifier func(ctx context.Context) (map[string]Classification, error)

// SetClassifier classifies the page targets now and again whenever a page
// appears that the last answer did not name. Targets it does not name keep
// the transport's own kind (other, for Electron).
func (b *Browser) SetClassifier(ctx context.Context, c Classifier) error {
	m, err := c(ctx)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.classifier, b.classes = c, m
	return nil
}

// reclassify asks the classifier again when a page root is not classified.
// A failure keeps the last answer: the unknown pages stay other.
func (b *Browser) reclassify(ctx context.Context) {
	b.mu.Lock()
	c, stale := b.classifier, false
	for tid := range b.byTarget {
		if _, ok := b.classes[tid]; !ok {
			stale = true
		}
	}
	b.mu.Unlock()
	if c == nil || !stale {
		return
	}
	if m, err := c(ctx); err == nil {
		b.mu.Lock()
		b.classes = m
		b.mu.Unlock()
	}
}

// Electron reports whether the browser is an Electron app (by its user
// agent).
func (b *Browser) Electron() bool { return b.electron }

// pageKind is a page target's kind and parent surface. Caller holds b.mu.
func (b *Browser) pageKind(t *Tab) (kind, parent string) {
	if c, ok := b.classes[t.TargetID]; ok && c.Kind != "" {
		if p := b.byTarget[c.ParentTargetID]; p != nil {
			parent = p.ID
		}
		return c.Kind, parent
	}
	if b.electron {
		// The endpoint alone does not say which pages are windows,
		// views or webviews.
		return KindOther, ""
	}
	return KindTab, ""
}

// Surfaces lists every live surface, parent-first: each page root, then the
// frames in it (depth-first); a page root
// with a parent (a webview guest) comes after its host, wherever the host
// is in the order pages appeared. Titles are asked for afresh, as Tabs
// does.
func (b *Browser) Surfaces(ctx context.Context) (list []Surface) {
	b.refreshTitles(ctx)
	b.reclassify(ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	list = []Surface{}
	for _, id := range b.order {
		t := b.bySurface[id]
		list = append(list, b.describe(t))
		for _, f := range t.framesInOrder() {
			list = append(list, b.describe(f))
		}
	}
	return parentFirst(list, func(s Surface) (string, string) { return s.ID, s.ParentID })
}

// parentFirst orders a list so that every item comes after its parent: a
// depth-first walk from the items whose parent is not in the list, each
// item's children in the order they were listed, so a list that already
// is such a walk keeps its order. Items in a parent cycle (which no
// browser reports) come last, with what is under them, rather than
// vanish.
func parentFirst[T any](list []T, key func(T) (id, parent string)) []T {
	index := make(map[string]int, len(list))
	for i, x := range list {
		id, _ := key(x)
		index[id] = i
	}
	kids := map[int][]int{}
	var roots []int
	for i, x := range list {
		_, p := key(x)
		if j, ok := index[p]; ok && p != "" && j != i {
			kids[j] = append(kids[j], i)
		} else {
			roots = append(roots, i)
		}
	}
	out := make([]T, 0, len(list))
	done := make([]bool, len(list))
	var walk func(i int)
	walk = func(i int) {
		if done[i] {
			return
		}
		done[i] = true
		out = append(out, list[i])
		for _, k := range kids[i] {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for i := range list {
		walk(i)
	}
	return out
}

// Describe returns the descriptor of one live surface.
func (t *Tab) Describe() Surface {
	t.b.mu.Lock()
	defer t.b.mu.Unlock()
	return t.b.describe(t)
}

// describe builds a descriptor. Caller holds b.mu.
func (b *Browser) describe(t *Tab) Surface {
	title, url := t.info()
	s := Surface{ID: t.ID, Title: title, URL: url, Crashed: t.IsCrashed()}
	ok := t.usable()
	s.Capabilities = Capabilities{Snapshot: ok, Interaction: ok, RendererEval: ok}
	if !t.IsFrame() {
		s.Kind, s.ParentID = b.pageKind(t)
		return s
	}
	s.Kind = KindFrame
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.frames[t.root]; f != nil {
		s.ParentID = t.surfaceOf(f.parent)
		s.OriginRelation = t.originRelation(f, t.frames[f.parent])
	}
	return s
}

// usable reports whether loupe can work in the surface now: its page is set
// up, its renderer alive, and its frame has a live session.
func (t *Tab) usable() bool {
	if t.IsCrashed() {
		return false
	}
	select {
	case <-t.ready:
		if t.setupErr != nil {
			return false
		}
	default:
		return false
	}
	_, ok := t.frameState(t.root)
	return ok
}

// originRelation relates a frame's origin to its parent's, by the origins
// their documents run with (effectiveOrigin). Chromium 156 reports an
// opaque origin (sandboxed frames, data: URLs) as "://"; "null" is
// accepted too. Before a frame's first commit its origin is unknown, and
// so is the relation. Caller holds t.mu.
func (t *pageState) originRelation(f, parent *frame) string {
	o := t.effectiveOrigin(f)
	switch {
	case o == "://" || o == "null" || strings.HasPrefix(f.url, "data:"):
		return "opaque"
	case o == "" || parent == nil || t.effectiveOrigin(parent) == "":
		return ""
	case o == t.effectiveOrigin(parent):
		return "same-origin"
	}
	return "cross-origin"
}

// effectiveOrigin is the origin a frame's document runs with. Chromium's
// frame origin comes from the URL, so an about:blank or about:srcdoc
// document shows "://" even when it inherits its parent's origin (and
// with it, same-origin access to it); the document's execution contexts,
// in the session hosting the frame, carry the real one, still opaque when
// the frame is sandboxed. Until one appears, the URL's origin stands.
// Caller holds t.mu.
func (t *pageState) effectiveOrigin(f *frame) string {
	for _, c := range []map[string]mainContext{t.mainCtx, t.agentCtx} {
		if m, ok := c[f.id]; ok && m.sess == f.sess && m.origin != "" {
			return m.origin
		}
	}
	return f.origin
}

func (b *Browser) refreshTitles(ctx context.Context) {
	list, err := cdpproto.Call(ctx, b.conn.Browser(), target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{Type: "page"}}})
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ti := range list.TargetInfos {
		if t := b.byTarget[string(ti.TargetID)]; t != nil {
			t.setTitle(ti.Title)
		}
	}
}

// Switch makes a live surface the target of every later implicit
// operation and brings its page to the front.
func (b *Browser) Switch(ctx context.Context, id string) (*Tab, error) {
	return b.selectSurface(ctx, id, nil)
}

// selectSurface finds a live surface, if check (when given) allows it, and
// brings its page to the front. Which surface a caller works in is the
// caller's (see package sessions).
func (b *Browser) selectSurface(ctx context.Context, id string, check func(*Tab) error) (*Tab, error) {
	if id == "" {
		return nil, apitype.Errorf(apitype.BadInput, "missing surface id").Fix("give the id of a live surface ({1} lists them)", apitype.Step{Op: "surfaces"})
	}
	t, err := b.Tab(ctx, id)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(t); err != nil {
			return nil, err
		}
	}
	if _, err := cdpproto.Call(ctx, b.conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: target.ID(t.TargetID)}); err != nil {
		return nil, err
	}
	return t, nil
}

// Window is a page root as the window-oriented view lists it.
type Window struct {
	Surface
	// WindowID is the browser window that shows the page (0 when the
	// browser does not say).
	WindowID int64 `json:"windowId,omitempty"`
	// OpenerID is the surface that opened the page (window.open).
	OpenerID string `json:"openerId,omitempty"`
}

// Windows lists the page roots only, parent-first: the window-oriented
// view of the same registry as Surfaces. Window ids are asked for
// concurrently.
func (b *Browser) Windows(ctx context.Context) []Window {
	b.refreshTitles(ctx)
	b.reclassify(ctx)
	b.mu.Lock()
	out := make([]Window, 0, len(b.order))
	var targets []string
	for _, id := range b.order {
		t := b.bySurface[id]
		out = append(out, Window{Surface: b.describe(t), OpenerID: t.openerSurface()})
		targets = append(targets, t.TargetID)
	}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for i, tid := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := cdpproto.Call(ctx, b.conn.Browser(), browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: target.ID(tid)}); err == nil {
				out[i].WindowID = int64(r.WindowID)
			}
		}()
	}
	wg.Wait()
	return parentFirst(out, func(w Window) (string, string) { return w.ID, w.ParentID })
}

// SwitchWindow is Switch restricted to page roots.
func (b *Browser) SwitchWindow(ctx context.Context, id string) (*Tab, error) {
	return b.selectSurface(ctx, id, func(t *Tab) error {
		if !t.IsFrame() {
			return nil
		}
		return apitype.Errorf(apitype.SurfaceUnsupported, "surface %s is a frame, not a window", id).
			Fix("select frames with {1}", apitype.Step{Op: "switch", Args: map[string]string{"surface_id": id}})
	})
}

// Transport is how loupe talks to the browser: "pipe" when it launched it,
// "websocket" when attached.
func (b *Browser) Transport() string {
	if b.proc != nil {
		return "pipe"
	}
	return "websocket"
}

// Endpoint is the websocket URL of an attached browser ("" when launched).
func (b *Browser) Endpoint() string { return b.endpoint }

// Features is the capability matrix of this connection: what loupe can do
// through it, each feature true only when it is implemented and works over
// this transport.
func (b *Browser) Features() map[string]bool {
	b.mu.Lock()
	classified := b.classifier != nil
	b.mu.Unlock()
	return map[string]bool{
		"surfaceTargeting":       true,
		"frameSurfaces":          true,
		"outOfProcessFrames":     true,
		"shadowRoots":            true,
		"trustedInput":           true,
		"fileUpload":             true,
		"screenshots":            true,
		"consoleCapture":         true,
		"networkCapture":         true,
		"dialogHandling":         true,
		"electronClassification": classified,
	}
}

// Status is a cheap summary of the session, for telling what an operation
// changed: compare one taken before with one taken after. It makes no
// protocol call.
type Status struct {
	Pages   []string `json:"pages"`   // live page roots, in order
	Dialogs int64    `json:"dialogs"` // dialogs seen so far
}

// Status reports the session's status now.
func (b *Browser) Status() Status {
	b.mu.Lock()
	s := Status{Pages: slices.Clone(b.order)}
	b.mu.Unlock()
	s.Dialogs = b.events.DialogCount()
	return s
}
