package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/snapshot"
)

// SnapshotOptions selects what a snapshot shows.
type SnapshotOptions struct {
	NoCompact bool // show the raw tree, without the compact transform
	// BackendIDs fills each ref's backendNodeId (a few protocol calls per
	// new ref; known ones are cached).
	BackendIDs bool
	// MaxFrameDepth bounds how deep frames are expanded (0: DefaultFrameDepth).
	MaxFrameDepth int
}

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
}

// Snapshot is a rendered snapshot of one surface.
type Snapshot struct {
	Surface string    `json:"surface"`
	URL     string    `json:"url"`
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	Refs    []RefInfo `json:"refs"`
	Nodes   int       `json:"nodes"`
	Frames  int       `json:"frames"`
}

// frameCapture is one frame's part of a snapshot.
type frameCapture struct {
	id     string
	parent string
	depth  int
	page   *snapshot.Page
	w      *world
	owner  int64 // the agent's element id of the frame's <iframe> in the parent's world
	err    error // capturing the frame
	oerr   error // finding its <iframe>
	// partial is set when the capture did not walk the whole document
	// (a scoped or viewport-only snapshot).
	partial bool
}

// Snapshot captures the tab's page with every frame in it, same-process and
// out-of-process, to MaxFrameDepth. Frames are captured concurrently, each
// in the session that hosts it and bounded by its own deadline; a frame that
// cannot be read keeps its iframe node, without content, and a short note.
// Refs of nodes seen before in the same document are kept. Capturing has no
// effect on the page: nothing is focused, scrolled, activated or reloaded.
func (t *Tab) Snapshot(ctx context.Context, o SnapshotOptions) (*Snapshot, error) {
	t.op.Lock()
	defer t.op.Unlock()
	maxDepth := o.MaxFrameDepth
	if maxDepth <= 0 {
		maxDepth = DefaultFrameDepth
	}
	var (
		caps []*frameCapture
		err  error
	)
	// A top document that goes away mid-capture (a navigation racing the
	// snapshot) is captured again in its successor, once.
	for attempt := 0; attempt < 2; attempt++ {
		caps, err = t.captureAll(ctx, maxDepth)
		if !errors.Is(err, ErrDocumentGone) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	out := &Snapshot{Surface: t.ID, URL: caps[0].page.URL, Title: caps[0].page.Title, Frames: len(caps)}
	t.bindRefs(caps, out)
	if o.BackendIDs {
		t.fillBackendIDs(ctx, out)
	}
	nodes := merge(caps, maxDepth)
	if !o.NoCompact {
		nodes = snapshot.Compact(nodes)
	}
	for _, c := range caps {
		if c.page != nil {
			out.Nodes += c.page.Count
		}
	}
	out.Text = snapshot.Render(snapshot.Header{Surface: t.ID, Title: out.Title, URL: out.URL}, nodes)
	return out, nil
}

// captureAll captures the top frame and every frame below it to maxDepth,
// all at once. The first capture is the top frame's; its failure fails the
// snapshot.
func (t *Tab) captureAll(ctx context.Context, maxDepth int) ([]*frameCapture, error) {
	var list []*frameCapture
	var walk func(id, parent string, depth int)
	walk = func(id, parent string, depth int) {
		list = append(list, &frameCapture{id: id, parent: parent, depth: depth})
		if depth >= maxDepth {
			return
		}
		for _, c := range t.childFrames(id) {
			walk(c, id, depth+1)
		}
	}
	walk(t.mainFrame(), "", 0)
	var wg sync.WaitGroup
	for i, c := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fctx, cancel := ctx, context.CancelFunc(func() {})
			if i > 0 {
				fctx, cancel = context.WithTimeout(ctx, frameTimeout)
			}
			defer cancel()
			// The frame's <iframe> is looked up in the parent's session,
			// beside the capture: an unreadable frame still gets its note.
			owner := make(chan struct{})
			go func() {
				defer close(owner)
				if c.parent != "" {
					c.owner, c.oerr = t.frameOwner(fctx, c.id, c.parent)
				}
			}()
			c.page, c.w, c.err = t.capture(fctx, c.id)
			<-owner
		}()
	}
	wg.Wait()
	if list[0].err != nil {
		return nil, list[0].err
	}
	return list, nil
}

func (t *Tab) capture(ctx context.Context, frameID string) (*snapshot.Page, *world, error) {
	w, err := t.world(ctx, frameID)
	if err != nil {
		return nil, nil, err
	}
	var raw string
	if err := t.agentCall(ctx, w, "snapshot", &raw, map[string]any{}); err != nil {
		return nil, nil, err
	}
	p, err := snapshot.DecodePage(raw)
	if err != nil {
		return nil, nil, err
	}
	return p, w, nil
}

// bindRefs gives every node with an element id its ref, and forgets refs
// of documents no longer current. Caller holds t.op.
func (t *Tab) bindRefs(caps []*frameCapture, out *Snapshot) {
	live := map[string]int64{}
	for _, c := range caps {
		if c.err != nil || c.page == nil {
			continue
		}
		live[c.id] = c.w.ctxID
		doc := snapshot.Doc{Frame: c.id, World: c.w.ctxID}
		frameID := c.id
		if frameID == t.mainFrame() {
			frameID = ""
		}
		snapshot.Walk(c.page.Nodes, func(n *snapshot.Node, _ int) bool {
			if n.Elem != 0 {
				b := t.refs.Bind(doc, n.Elem, n.Role, n.Name)
				n.Ref = b.Ref
				out.Refs = append(out.Refs, RefInfo{Ref: b.Ref, FrameID: frameID, BackendNodeID: b.BackendNodeID, Role: n.Role, Name: n.Name})
			}
			return true
		})
	}
	// Refs of other documents can never resolve again: of frames captured
	// now in a new document, and of frames that are gone.
	t.refs.Retain(func(d snapshot.Doc) bool {
		if ctxID, ok := live[d.Frame]; ok {
			return ctxID == d.World
		}
		w := t.currentWorld(d.Frame)
		return w != nil && w.ctxID == d.World
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

func shortReason(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, ErrDocumentGone):
		return "detached"
	}
	return "error"
}
