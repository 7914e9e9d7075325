package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// ErrTabClosed means the tab closed while an operation used it.
var ErrTabClosed = errors.New("tab closed")

// ErrDocumentGone means the document an operation ran in went away (it
// navigated or its frame was removed) while the operation ran.
var ErrDocumentGone = world.ErrDocumentGone

// Surface is a surface: a page target (kind tab) or one frame in it (kind
// frame). A frame surface starts at its frame: its snapshot is that frame's
// document and the frames below it, and its refs are its own. A tab and the
// frame surfaces in it share one page: its sessions, frames, documents and
// operation lock.
type Surface struct {
	*pageState
	ID   string          // surface id, "s1"
	root string          // the frame this surface starts at
	refs *snapshot.Table // guarded by op
	// slots hold what packages above keep of this surface between
	// operations (the capture package's last walks), each in a typed
	// Slot of its own; guarded by op.
	slots map[slotKey]any
}

// pageState is one page target and everything loupe tracks in it.
type pageState struct {
	TargetID string
	b        *Browser
	sess     *cdp.Session
	tab      *Surface      // the page's own surface
	ready    chan struct{} // closed when setup has finished
	closed   chan struct{} // closed when the target has gone
	setupErr error         // set before ready closes

	// op is the page's operation token: the one operation working on
	// its surfaces holds it (see Exclusive). A channel rather than a
	// mutex, so that a wait for it ends with the waiter's context.
	op chan struct{}
	// held are the sessions whose renderer loupe left stopped in a dialog
	// of a flood (a lock of its own).
	held eventlog.Holds

	// mu guards the fields below. Taps write them on the reader goroutine.
	mu       sync.Mutex
	title    string
	url      string
	openerID string
	// input is when the last input was sent to the page (NoteInput).
	input time.Time
	// browserCtx is the page's browser context (set at attach, never
	// changed: a page cannot move between contexts).
	browserCtx string
	frames     map[string]*frame
	worlds     map[string]*world.World // by frame id
	owners     map[ownerKey]int64
	// worldLocks makes world creation single-flight per frame: concurrent
	// frame captures ask for their parents' worlds too.
	worldLocks map[string]*sync.Mutex
	// frameSurf holds the surface of each frame (not the main frame, which
	// is the tab's); frameTombs the ids of frame surfaces that went away.
	frameSurf  map[string]*Surface
	frameTombs map[string]bool
	pastSurf   map[string]string // frame id → surface id, for frames gone
	// contexts maps each execution context to its frame; mainCtx holds
	// each frame's main-world context (see recordEvents).
	contexts map[ctxKey]string
	mainCtx  map[string]mainContext
	agentCtx map[string]mainContext // the agent's world made at document creation
	// incs holds the current incarnation of each session's renderer,
	// the page's and its OOPIFs' (see crash.go).
	incs     map[*cdp.Session]*incarnation
	isClosed bool
	// inputBusy counts loupe's input calls in flight; inputLast is when
	// the last one ended (see hook.go).
	inputBusy int
	inputLast time.Time
}

func newSurface(b *Browser, id string, info targetInfo, sess *cdp.Session) *Surface {
	p := &pageState{
		TargetID: info.TargetID, b: b, sess: sess,
		ready: make(chan struct{}), closed: make(chan struct{}), op: make(chan struct{}, 1),
		title: info.Title, url: info.URL, openerID: info.OpenerID, browserCtx: info.BrowserContextID,
		frames: map[string]*frame{}, worlds: map[string]*world.World{}, owners: map[ownerKey]int64{},
		worldLocks: map[string]*sync.Mutex{}, frameSurf: map[string]*Surface{}, frameTombs: map[string]bool{},
		pastSurf: map[string]string{}, contexts: map[ctxKey]string{}, mainCtx: map[string]mainContext{}, agentCtx: map[string]mainContext{},
		incs: map[*cdp.Session]*incarnation{},
	}
	p.tab = &Surface{pageState: p, ID: id, root: info.TargetID, refs: snapshot.NewTable(b.ids.Refs(), id)}
	return p.tab
}

// IsFrame reports whether the surface is a frame rather than its page.
func (t *Surface) IsFrame() bool { return t.root != t.TargetID }

// frameSurface returns the surface of a frame, making one (with a new id)
// the first time the frame is seen. Caller holds t.mu.
// NoteInput records that input was just sent to the page, at: a write's
// report waits for a dialog the input's handlers open a moment later,
// counted from the input rather than from when the write's result is
// taken.
func (p *pageState) NoteInput(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.input = at
}

// LastInput is when input was last sent to the page (zero: never).
func (p *pageState) LastInput() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.input
}

func (p *pageState) frameSurface(frameID string) *Surface {
	if frameID == p.TargetID {
		return p.tab
	}
	s := p.frameSurf[frameID]
	if s == nil {
		id := p.b.newSurfaceID()
		s = &Surface{pageState: p, ID: id, root: frameID, refs: snapshot.NewTable(p.b.ids.Refs(), id)}
		p.frameSurf[frameID] = s
	}
	return s
}

// Exclusive runs f while no other operation works on the surface's page
// (a tab and the frames in it take turns): every operation that resolves
// or binds refs, or sends input, runs in it, so two operations' refs and
// input never interleave; waits use it only to resolve what they wait
// for. It waits for its turn until ctx ends, and then f does not run. f
// must not call Exclusive on a surface of the same page.
func (t *Surface) Exclusive(ctx context.Context, f func() error) error {
	select {
	case t.op <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the tab's other operation to finish: %w", ctx.Err())
	}
	defer func() { <-t.op }()
	return f()
}

// Exclusively is Exclusive for a function with a result.
func Exclusively[T any](ctx context.Context, t *Surface, f func() (T, error)) (T, error) {
	var v T
	err := t.Exclusive(ctx, func() (err error) {
		v, err = f()
		return err
	})
	return v, err
}

// hold takes the page's operation token with no deadline of its own: for
// what must happen whatever the caller (refs dropped at a take-over); the
// operation that holds it meanwhile ends by its own deadline.
func (t *Surface) hold() (release func()) {
	t.op <- struct{}{}
	return func() { <-t.op }
}

// Root is the id of the frame the surface starts at: the page's top frame
// (whose id is the target id) for a tab, the frame itself for a frame
// surface. Snapshots, reads, waits and eval start there; coordinates and
// input are always the page's (see ToTop).
func (t *Surface) Root() string { return t.root }

// Session is the page target's session. Input, navigation and screenshots
// go there whatever frame the surface starts at; calls for a node go to
// the session of its frame (World.Session). Its calls fail fast with
// ErrTabCrashed once the page's renderer has crashed.
func (t *Surface) Session() Session { return t.wrap(t.sess) }

// Refs is the surface's ref table. Read and change it in Exclusive.
func (t *Surface) Refs() *snapshot.Table { return t.refs }

// BrowserContext is the id of the browser context the page lives in.
func (t *Surface) BrowserContext() string { return t.browserCtx }

// Slot is a place for a value of type T that a package above the engine
// keeps with each surface between operations (the capture package's last
// walks): typed, so no package reads another's, and dropped with the
// surface. Read and change it in Exclusive. Make one per kind of value,
// once (NewSlot).
type Slot[T any] struct{ key slotKey }

type slotKey *struct{ name string }

// NewSlot returns a new slot; name says what it holds, for debugging.
func NewSlot[T any](name string) Slot[T] { return Slot[T]{key: &struct{ name string }{name}} }

// Get returns the surface's value in the slot (nil before the first Set).
func (s Slot[T]) Get(t *Surface) *T {
	v, _ := t.slots[s.key].(*T)
	return v
}

// Set keeps v in the surface's slot until the next Set.
func (s Slot[T]) Set(t *Surface, v *T) {
	if t.slots == nil {
		t.slots = map[slotKey]any{}
	}
	t.slots[s.key] = v
}

func (t *Surface) wait(ctx context.Context) error {
	select {
	case <-t.ready:
		return t.setupErr
	case <-t.closed:
		return ErrTabClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// setInfo records the target's title and address; it reports whether
// either changed.
func (t *Surface) setInfo(title, url string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := t.title != title || t.url != url
	t.title, t.url = title, url
	return changed
}

// SetTitle records the page's title as the browser reports it when asked
// (packages surface and nav ask: targetInfoChanged events can trail a
// page's title by a while).
func (t *Surface) SetTitle(title string) {
	t.mu.Lock()
	t.title = title
	t.mu.Unlock()
}

// info is the tab's title and its committed top-level URL.
func (t *Surface) info() (title, url string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.frames[t.root]; f != nil && f.url != "" {
		url = f.url
	} else if !t.IsFrame() {
		url = t.url
	}
	if t.IsFrame() {
		return "", url
	}
	return t.title, url
}

// OpenerTarget is the target id of the page that opened this one
// (window.open), "" when none did; package surface names its surface.
func (t *Surface) OpenerTarget() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.openerID
}

// URL is the tab's current top-level address.
func (t *Surface) URL() string {
	_, u := t.info()
	return u
}

// Title is the tab's current title.
func (t *Surface) Title() string {
	title, _ := t.info()
	return title
}

func (t *Surface) String() string { return fmt.Sprintf("%s (%s)", t.ID, t.URL()) }

// Usable reports whether loupe can work in the surface now: its page is
// set up, its renderer alive, and its frame has a live session.
func (t *Surface) Usable() bool {
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

// Closed is closed when the tab's target has gone (a tab and its frame
// surfaces share it).
func (t *Surface) Closed() <-chan struct{} { return t.closed }

func (t *Surface) markClosed() {
	t.mu.Lock()
	if t.isClosed {
		t.mu.Unlock()
		return
	}
	t.isClosed = true
	t.mu.Unlock()
	close(t.closed)
}

// FrameSurfaces lists the frame surfaces of the page this surface is in,
// parent-first: a depth-first walk of the frame tree, siblings in the
// order loupe first saw them.
func (p *pageState) FrameSurfaces() []*Surface {
	p.mu.Lock()
	defer p.mu.Unlock()
	kids := map[string][]*Surface{}
	for id, s := range p.frameSurf {
		if f := p.frames[id]; f != nil {
			kids[f.parent] = append(kids[f.parent], s)
		}
	}
	var out []*Surface
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		if depth > 64 {
			return
		}
		cs := kids[id]
		slices.SortFunc(cs, func(a, b *Surface) int { return cmpSurfaceID(a.ID, b.ID) })
		for _, c := range cs {
			out = append(out, c)
			walk(c.root, depth+1)
		}
	}
	walk(p.TargetID, 0)
	return out
}

// cmpSurfaceID orders surface ids by when they were made ("s9" < "s10").
func cmpSurfaceID(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// PageID is the surface id of the page this surface is in (its own for a
// tab).
func (t *Surface) PageID() string { return t.tab.ID }

// ForgetRefs drops every ref of the page this surface is in, its frame
// surfaces' too: after a person has had the tab (a take-over), what the
// agent saw before may no longer be there, so its old refs are STALE_REF
// and it must read the page afresh. Returns how many refs were dropped.
func (t *Surface) ForgetRefs() int {
	defer t.hold()()
	t.mu.Lock()
	surfaces := []*Surface{t.tab}
	for _, f := range t.frameSurf {
		surfaces = append(surfaces, f)
	}
	t.mu.Unlock()
	n := 0
	for _, s := range surfaces {
		n += s.refs.Retain(func(snapshot.Doc) bool { return false })
	}
	return n
}
