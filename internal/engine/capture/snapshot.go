// Package capture reads what a surface shows: snapshots (the text tree with
// refs, across frames and renderers), stable locators for refs, the
// resolution of refs and locators to elements (with the STALE_REF errors
// that refuse the ones that went away) and queries by role, name and text.
// It sits on the engine core, which keeps the frames, worlds and ref
// tables, and is below the actions and waits, which resolve their targets
// through Resolve. It never changes the page: nothing it does focuses,
// scrolls, activates or reloads.
package capture

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/snapshot"
	"github.com/loupe-dev/loupe/internal/wire"
)

// SnapshotOptions selects what a snapshot shows. The zero value is the
// whole surface, compacted.
type SnapshotOptions struct {
	NoCompact bool // show the raw tree, without the compact transform
	// BackendIDs fills each ref's backendNodeId (a few protocol calls per
	// new ref; known ones are cached).
	BackendIDs bool
	// MaxFrameDepth bounds how deep frames are expanded (0: DefaultFrameDepth).
	MaxFrameDepth int
	// Interactive keeps only nodes with refs and their context.
	Interactive bool
	// Depth cuts each frame's tree below this many levels (0: no limit).
	Depth int
	// Viewport keeps only what intersects the viewport.
	Viewport bool
	// Locators prints each ref's locator.
	Locators bool
	// Scope captures only one subtree: a ref, or a locator that must match
	// exactly one element.
	Scope string
	// MaxChars truncates the text at a line boundary (0: no limit).
	MaxChars int
	// NoCache walks every document afresh, even one whose agent saw no
	// change since its last walk (see the page agent's last walk).
	NoCache bool
}

// walkBudget is the agent's budget for a snapshot cut at maxChars: four
// times the text, since what the agent counts may be said up to four
// times over in the text (a name from content, its text, a row's cells).
func walkBudget(maxChars int) int { return 4*maxChars + 512 }

// DefaultFrameDepth is the frame nesting a snapshot expands by default. It
// is only a safety bound against runaway nesting; the snapshot says so
// where it is hit.
const DefaultFrameDepth = 8

// frameTimeout bounds the capture of one frame: a frame that is slow,
// blocked or crashed is shown without content rather than holding up the
// snapshot.
const frameTimeout = 5 * time.Second

// RefInfo describes one ref of a snapshot.
type RefInfo struct {
	Ref           string `json:"ref"`
	FrameID       string `json:"frameId,omitempty"` // omitted for the top document
	BackendNodeID int64  `json:"backendNodeId,omitempty"`
	Role          string `json:"role"`
	Name          string `json:"name"`
	// Control: something to operate (the interactive view keeps these),
	// not only a line of text or structure.
	Control bool `json:"control,omitempty"`
}

// Snapshot is a rendered snapshot of one surface.
type Snapshot struct {
	Surface string    `json:"surface"`
	URL     string    `json:"url"`
	Title   string    `json:"title"`
	Scope   string    `json:"scope,omitempty"`
	Text    string    `json:"text"`
	Refs    []RefInfo `json:"refs"`
	Nodes   int       `json:"nodes"`
	Frames  int       `json:"frames"`
	// Chars and Tokens are the size of Text (tokens estimated as chars/4,
	// as agents' context windows roughly count them).
	Chars     int  `json:"chars"`
	Tokens    int  `json:"tokens"`
	Truncated bool `json:"truncated,omitempty"`
}

// frameCapture is one frame's part of a snapshot.
type frameCapture struct {
	id     string
	parent string
	depth  int
	page   *snapshot.Page
	w      *world.World
	owner  int64 // the agent's element id of the frame's <iframe> in the parent's world
	err    error // capturing the frame
	oerr   error // finding its <iframe>
	// partial is set when the capture did not walk the whole document
	// (a scoped or viewport-only snapshot).
	partial bool
	// keys are the keyed nodes of a walk the agent keeps (nil otherwise).
	keys map[int64]*snapshot.Node
}

// Take captures a snapshot of the surface: its document with every frame
// in it, same-process and out-of-process, to MaxFrameDepth. Frames are captured concurrently, each
// in the session that hosts it and bounded by its own deadline; a frame that
// cannot be read keeps its iframe node, without content, and a short note.
// Refs of nodes seen before in the same document are kept. Capturing has no
// effect on the page: nothing is focused, scrolled, activated or reloaded.
func Take(ctx context.Context, t *engine.Surface, o SnapshotOptions) (*Snapshot, error) {
	return engine.Exclusively(ctx, t, func() (*Snapshot, error) {
		k := keptOf(t)
		caps, plan, scopeRef, err := captureFor(ctx, t, o, k)
		if err != nil {
			return nil, err
		}
		if out, ok := k.reuse(ctx, t, o, caps); ok {
			return out, nil
		}
		k.remember(caps, !plan.partial)
		plan.ax.retain(t)
		out := &Snapshot{Surface: t.ID, URL: caps[0].page.URL, Title: caps[0].page.Title, Frames: len(caps), Scope: scopeRef}
		if plan.rootFrame != t.Root() {
			// A scope inside a frame: the surface is still the tab's.
			out.URL, out.Title = t.URL(), t.Title()
		}
		bindRefs(t, caps, out)
		if o.BackendIDs {
			fillBackendIDs(ctx, t, out)
		}
		// Locators are counted on the captured trees as captured, before
		// merging and the transforms rewrite them; their agent calls run
		// beside the merge and render, unless the text prints them.
		locs := make(chan struct{})
		if j := prepareLocators(t, caps); j == nil {
			close(locs)
		} else if o.Locators {
			j.run(ctx, t, k)
			close(locs)
		} else {
			go func() {
				defer close(locs)
				j.run(ctx, t, k)
			}()
		}
		defer func() { <-locs }()
		nodes := merge(caps, plan.maxDepth)
		inTreeOrder(nodes, out.Refs)
		if !o.NoCompact {
			nodes = snapshot.Compact(nodes)
		}
		if o.Interactive {
			nodes = snapshot.Interactive(nodes)
		}
		if o.Depth > 0 {
			nodes = snapshot.LimitDepth(nodes, o.Depth)
		}
		for _, c := range caps {
			if c.page != nil {
				out.Nodes += c.page.Count
			}
		}
		ro := snapshot.RenderOptions{MaxChars: o.MaxChars}
		for _, c := range caps {
			if c.page != nil && c.page.Cut {
				ro.Partial = true
			}
		}
		if o.Locators {
			ro.Locator = func(ref string) string {
				if b, ok := t.Refs().Lookup(ref); ok {
					return b.Locator
				}
				return ""
			}
		}
		title := out.Title
		if scopeRef != "" {
			title += " (scope " + scopeRef + ")"
		}
		r := snapshot.Render(snapshot.Header{Surface: t.ID, Title: title, URL: out.URL}, nodes, ro)
		out.Chars, out.Tokens, out.Truncated = len(r.Text), wire.Tokens(r.Text), r.Truncated
		out.Text = r.Text + wire.Footer(r.Text)
		k.keepSnapshot(o, caps, out)
		return out, nil
	})
}

// captureFor captures the frames a snapshot with these options shows, and
// says where it started (the scope's ref, if any). Caller holds t.Lock.
func captureFor(ctx context.Context, t *engine.Surface, o SnapshotOptions, kept *kept) ([]*frameCapture, capturePlan, string, error) {
	plan := capturePlan{maxDepth: o.MaxFrameDepth, rootFrame: t.Root(), agent: map[string]any{}, kept: kept, ax: internalsOf(t)}
	if plan.maxDepth <= 0 {
		plan.maxDepth = DefaultFrameDepth
	}
	if o.Viewport {
		plan.agent["viewport"] = true
		plan.partial = true
	}
	if o.NoCache {
		plan.agent["noCache"] = true
	}
	if o.MaxChars > 0 {
		// A walk that would start afresh stops once it has made well more
		// than the text will keep (its count is of names and text, which
		// a snapshot may say twice: a row's cells, a link's name): the
		// work of a big page's rest is spared, the kept text unchanged.
		plan.agent["budget"] = walkBudget(o.MaxChars)
	}
	var scopeRef string
	if o.Scope != "" {
		el, err := Resolve(ctx, t, o.Scope)
		if err != nil {
			return nil, plan, "", err
		}
		plan.rootFrame, plan.rootElem, plan.partial, scopeRef = el.Frame, el.Elem, true, el.Ref
	}
	var (
		caps []*frameCapture
		err  error
	)
	// A top document that goes away mid-capture (a navigation racing the
	// snapshot) is captured again in its successor, once.
	for attempt := 0; attempt < 2; attempt++ {
		caps, err = captureFrames(ctx, t, plan)
		if !errors.Is(err, engine.ErrDocumentGone) || o.Scope != "" {
			break
		}
	}
	if err != nil {
		if o.Scope != "" {
			return nil, plan, "", StaleIfGone(scopeRef, err)
		}
		return nil, plan, "", err
	}
	return caps, plan, scopeRef, nil
}

// capturePlan says what to capture: which frame (and element) the tree
// starts at, how deep frames go, and the page agent's options.
type capturePlan struct {
	maxDepth  int
	rootFrame string
	rootElem  int64 // 0: the whole document
	agent     map[string]any
	// partial: the capture does not walk every document whole, so only the
	// frames whose <iframe> is in the captured tree are captured.
	partial bool
	// kept holds the frames' last walks, which the agents are told the
	// caller has (nil: none).
	kept *kept
	// ax tracks the custom elements whose semantics come from their
	// internals (nil: none are read).
	ax *internals
}

// captureAll captures the top frame and every frame below it to maxDepth,
// all at once (see captureFrames).
func captureAll(ctx context.Context, t *engine.Surface, maxDepth int) ([]*frameCapture, error) {
	return captureFrames(ctx, t, capturePlan{maxDepth: maxDepth, rootFrame: t.Root()})
}

// captureFrames captures a plan's frames. The first capture is the root
// frame's; its failure fails the snapshot. A whole-surface capture takes
// every frame at once; a partial one (scope, viewport) goes level by level,
// capturing a frame only when its <iframe> is in its parent's captured tree.
func captureFrames(ctx context.Context, t *engine.Surface, plan capturePlan) ([]*frameCapture, error) {
	if plan.partial {
		return captureLevels(ctx, t, plan)
	}
	var list []*frameCapture
	var walk func(id, parent string, depth int)
	walk = func(id, parent string, depth int) {
		list = append(list, &frameCapture{id: id, parent: parent, depth: depth})
		if depth >= plan.maxDepth {
			return
		}
		for _, c := range t.ChildFrames(id) {
			walk(c, id, depth+1)
		}
	}
	walk(t.Root(), "", 0)
	var wg sync.WaitGroup
	for i, c := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			captureOne(ctx, t, c, plan.agent, plan.kept, plan.ax, i > 0)
		}()
	}
	wg.Wait()
	if list[0].err != nil {
		return nil, list[0].err
	}
	return list, nil
}

// captureOne captures one frame and, beside it in the parent's session,
// finds its <iframe> (so an unreadable frame still gets its note). A
// subframe's capture has its own deadline.
func captureOne(ctx context.Context, t *engine.Surface, c *frameCapture, agent map[string]any, kept *kept, ax *internals, bounded bool) {
	if bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, frameTimeout)
		defer cancel()
	}
	owner := make(chan struct{})
	go func() {
		defer close(owner)
		if c.parent != "" && c.owner == 0 {
			c.owner, c.oerr = t.FrameOwner(ctx, c.id, c.parent)
		}
	}()
	c.page, c.keys, c.w, c.err = capture(ctx, t, c.id, agent, kept, ax)
	<-owner
}

// captureLevels captures a partial plan: the root frame (from its root
// element, if any), then, level by level, the frames whose <iframe> made it
// into their parent's captured tree.
func captureLevels(ctx context.Context, t *engine.Surface, plan capturePlan) ([]*frameCapture, error) {
	rootOpts := map[string]any{}
	for k, v := range plan.agent {
		rootOpts[k] = v
	}
	if plan.rootElem != 0 {
		rootOpts["root"] = plan.rootElem
	}
	root := &frameCapture{id: plan.rootFrame, depth: t.FrameDepth(plan.rootFrame), partial: true}
	captureOne(ctx, t, root, rootOpts, nil, plan.ax, false)
	if root.err != nil {
		return nil, root.err
	}
	list := []*frameCapture{root}
	level := []*frameCapture{root}
	for len(level) > 0 {
		var next []*frameCapture
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, p := range level {
			if p.err != nil || p.page == nil || p.depth >= plan.maxDepth {
				continue
			}
			shown := map[int64]bool{}
			snapshot.Walk(p.page.Nodes, func(n *snapshot.Node, _ int) bool {
				if n.Frame {
					shown[n.Elem] = true
				}
				return true
			})
			if len(shown) == 0 {
				continue
			}
			for _, id := range t.ChildFrames(p.id) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := &frameCapture{id: id, parent: p.id, depth: p.depth + 1, partial: true}
					octx, cancel := context.WithTimeout(ctx, frameTimeout)
					c.owner, c.oerr = t.FrameOwner(octx, id, p.id)
					cancel()
					if c.oerr != nil || !shown[c.owner] {
						return
					}
					captureOne(ctx, t, c, plan.agent, nil, plan.ax, true)
					mu.Lock()
					next = append(next, c)
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		list = append(list, next...)
		level = next
	}
	return list, nil
}

// bindRefs gives every node with an element id its ref, and forgets refs
// of documents no longer current. Caller holds t.Lock.
func bindRefs(t *engine.Surface, caps []*frameCapture, out *Snapshot) {
	live := map[string]int64{}
	for _, c := range caps {
		if c.err != nil || c.page == nil {
			continue
		}
		live[c.id] = c.w.ContextID()
		doc := snapshot.Doc{Frame: c.id, World: c.w.ContextID()}
		frameID := c.id
		if frameID == t.TargetID {
			frameID = ""
		}
		t.Refs().Forget(doc, c.page.Gone)
		snapshot.Walk(c.page.Nodes, func(n *snapshot.Node, _ int) bool {
			if n.Elem != 0 && !n.NoRef {
				b := t.Refs().Bind(doc, n.Elem, n.Role, n.Name)
				n.Ref = b.Ref
				out.Refs = append(out.Refs, RefInfo{Ref: b.Ref, FrameID: frameID, BackendNodeID: b.BackendNodeID, Role: n.Role, Name: n.Name, Control: n.Control})
			}
			return true
		})
	}
	// Refs of other documents can never resolve again: of frames captured
	// now in a new document, and of frames that are gone.
	t.Refs().Retain(func(d snapshot.Doc) bool {
		if ctxID, ok := live[d.Frame]; ok {
			return ctxID == d.World
		}
		w := t.CurrentWorld(d.Frame)
		return w != nil && w.ContextID() == d.World
	})
}

// merge hangs each frame's nodes under its iframe node in its parent and
// returns the top frame's nodes. A frame that could not be captured leaves
// a note on its iframe node instead.
func merge(caps []*frameCapture, maxDepth int) []*snapshot.Node {
	byFrame := map[string][]*frameCapture{}
	for _, c := range caps[1:] {
		byFrame[c.parent] = append(byFrame[c.parent], c)
	}
	for _, parent := range caps {
		if parent.err != nil || parent.page == nil {
			continue
		}
		owners := map[int64]*frameCapture{}
		for _, c := range byFrame[parent.id] {
			if c.owner != 0 {
				owners[c.owner] = c
			}
		}
		snapshot.Walk(parent.page.Nodes, func(n *snapshot.Node, _ int) bool {
			if !n.Frame {
				return true
			}
			c := owners[n.Elem]
			switch {
			case parent.depth >= maxDepth:
				n.FrameNote = fmt.Sprintf("frame depth limit %d", maxDepth)
			case c == nil:
				n.FrameNote = "frame not loaded"
			case c.err != nil:
				n.FrameNote = "frame unreadable: " + shortReason(c.err)
			default:
				n.Children = c.page.Nodes
			}
			return false
		})
	}
	return caps[0].page.Nodes
}

// inTreeOrder sorts refs as their nodes come in the merged tree: a frame's
// refs where its iframe is, as a reader meets them. A stable counting
// sort on each ref's place (a ref the tree does not show, of a frame
// without its iframe, goes last): linear, where a comparison sort looked
// the places up in a map at every comparison (4 ms of a snapshot of the
// four-frame page).
func inTreeOrder(nodes []*snapshot.Node, refs []RefInfo) {
	at := make(map[string]int, len(refs))
	snapshot.Walk(nodes, func(n *snapshot.Node, _ int) bool {
		if n.Ref != "" {
			if _, ok := at[n.Ref]; !ok {
				at[n.Ref] = len(at)
			}
		}
		return true
	})
	pos := make([]int, len(refs))
	next := make([]int, len(at)+2) // next[p+1]: how many refs go before place p's first
	for i, r := range refs {
		p, ok := at[r.Ref]
		if !ok {
			p = len(at)
		}
		pos[i] = p
		next[p+1]++
	}
	for p := 1; p < len(next); p++ {
		next[p] += next[p-1]
	}
	sorted := make([]RefInfo, len(refs))
	for i, r := range refs {
		sorted[next[pos[i]]] = r
		next[pos[i]]++
	}
	copy(refs, sorted)
}

func shortReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, engine.ErrDocumentGone):
		return "detached"
	}
	return "error"
}

// fillBackendIDs looks up the DOM backend node id of every ref that does not
// have one yet, per document and concurrently, and caches it on the ref.
// Caller holds t.Lock.
func fillBackendIDs(ctx context.Context, t *engine.Surface, out *Snapshot) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	sem := make(chan struct{}, 16)
	for i := range out.Refs {
		ri := &out.Refs[i]
		if ri.BackendNodeID != 0 {
			continue
		}
		b, ok := t.Refs().Lookup(ri.Ref)
		if !ok {
			continue
		}
		w := t.CurrentWorld(b.Doc.Frame)
		if w == nil || w.ContextID() != b.Doc.World {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_ = w.WithObject(ctx, b.Elem, func(obj runtime.RemoteObjectID) error {
				node, err := cdpproto.Call(ctx, w.Session(), dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
				if err != nil || node.Node == nil {
					return err
				}
				mu.Lock()
				b.BackendNodeID = int64(node.Node.BackendNodeID)
				ri.BackendNodeID = b.BackendNodeID
				mu.Unlock()
				return nil
			})
		}()
	}
	wg.Wait()
}
