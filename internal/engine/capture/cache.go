package capture

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// kept is what the capture package keeps of a surface between snapshots
// (in its engine.Slot, guarded by the surface's Exclusive):
//   - per frame, the agent's last walk as decoded: its tree, never changed
//     (the stages that change nodes get a copy), and its keyed nodes. The
//     agent is told which walk is kept (have) and sends only what changed
//     since, the rest by key (see the page agent's last walk);
//   - the last whole snapshot, served again as it is when every frame's
//     agent says its document is as that walk showed it.
//
// It costs a copy of each frame's tree in memory (about 3 MB for a page of
// 20,000 snapshot nodes), and spares the transfer, decoding and, when
// nothing changed, the rendering of what did not change.
type kept struct {
	walks map[string]*keptWalk // by frame id
	last  *lastSnapshot
	// locs holds each frame's last locatorInfo answer; concurrent frames
	// ask at once, hence the lock.
	mu   sync.Mutex
	locs map[string]*keptLocs
}

// keptLocs is a frame's last locatorInfo answer and the question it was
// for, given when the document's elements and attributes were as at walk
// shape (Page.Struct): an answer depends on nothing else (ids, test ids,
// tag paths).
type keptLocs struct {
	world, shape int64
	ids, paths   []int64
	probes       []string
	info         map[int64]*locInfo
	probed       []int
}

// locatorInfo is locatorInfoCall, answered from the kept answer when the
// frame's elements and attributes have not changed since (same world, same
// shape) and the question is the same.
func (k *kept) locatorInfo(ctx context.Context, fl *frameLocs, probes []string) (map[int64]*locInfo, []int) {
	c := fl.c
	if k == nil || c.page == nil || c.page.Struct == 0 {
		return locatorInfoCall(ctx, fl, probes)
	}
	world := c.w.ContextID()
	k.mu.Lock()
	l := k.locs[c.id]
	k.mu.Unlock()
	if l != nil && l.world == world && l.shape == c.page.Struct && slices.Equal(l.ids, fl.ids) && slices.Equal(l.paths, fl.paths) &&
		slices.Equal(l.probes, probes) {
		return l.info, l.probed
	}
	info, probed := locatorInfoCall(ctx, fl, probes)
	if info != nil {
		k.mu.Lock()
		if k.locs == nil {
			k.locs = map[string]*keptLocs{}
		}
		k.locs[c.id] = &keptLocs{world: world, shape: c.page.Struct, ids: slices.Clone(fl.ids), paths: slices.Clone(fl.paths),
			probes: slices.Clone(probes), info: info, probed: probed}
		k.mu.Unlock()
	}
	return info, probed
}

// keptWalk is one frame's last walk: in which world, its number, its tree
// and its keyed nodes.
type keptWalk struct {
	world int64
	seq   int64
	nodes []*snapshot.Node
	keys  map[int64]*snapshot.Node
}

// keptSlot holds each surface's kept state.
var keptSlot = engine.NewSlot[kept]("capture.kept")

// keptOf returns the surface's kept state. Caller is in t.Exclusive.
func keptOf(t *engine.Surface) *kept {
	if k := keptSlot.Get(t); k != nil {
		return k
	}
	k := &kept{walks: map[string]*keptWalk{}}
	keptSlot.Set(t, k)
	return k
}

// walkOf is the kept walk of a frame in a world (nil: none). Safe for
// concurrent captures: the map changes only in Take, after them.
func (k *kept) walkOf(frameID string, world int64) *keptWalk {
	if k == nil {
		return nil
	}
	if w := k.walks[frameID]; w != nil && w.world == world {
		return w
	}
	return nil
}

// remember keeps each frame's new walk and forgets frames no longer
// captured whole, and gives every capture its own copy of its tree.
func (k *kept) remember(caps []*frameCapture, whole bool) {
	if k != nil && whole {
		walks := make(map[string]*keptWalk, len(caps))
		for _, c := range caps {
			if c.page != nil && c.page.Seq != 0 && c.keys != nil {
				walks[c.id] = &keptWalk{world: c.w.ContextID(), seq: c.page.Seq, nodes: c.page.Nodes, keys: c.keys}
			}
		}
		k.walks = walks
		k.mu.Lock()
		for id := range k.locs {
			if walks[id] == nil {
				delete(k.locs, id)
			}
		}
		k.mu.Unlock()
	}
	for _, c := range caps {
		if c.page != nil && c.keys != nil {
			c.page.Nodes = snapshot.Clone(c.page.Nodes)
		}
	}
}

// lastSnapshot is a surface's last whole snapshot, with the options it
// was made with and where each frame's walk was.
type lastSnapshot struct {
	opts   SnapshotOptions
	frames []keptFrame // in capture order
	snap   Snapshot
}

// keptFrame is one frame of a kept snapshot: where it was, in which
// world, and the agent's walk number.
type keptFrame struct {
	id, parent string
	depth      int
	world      int64
	owner      int64
	seq        int64
}

// cacheable reports options whose snapshot is kept: the whole surface,
// from the agents' kept walks.
func cacheable(o SnapshotOptions) bool {
	return !o.NoCache && !o.Viewport && o.Scope == ""
}

// reuse returns the kept snapshot when the capture found every frame as
// it was: the same frames in the same places and worlds, each agent
// saying "same", and the same options. The ref table is brought up to
// date as a new snapshot would (gone elements' refs dropped); a ref the
// table no longer holds means the kept text is not servable.
func (k *kept) reuse(ctx context.Context, t *engine.Surface, o SnapshotOptions, caps []*frameCapture) (*Snapshot, bool) {
	if k == nil || k.last == nil || k.last.opts != o || !cacheable(o) || len(caps) != len(k.last.frames) {
		return nil, false
	}
	last := k.last
	for i, c := range caps {
		if c.err != nil || c.oerr != nil || c.page == nil || !c.page.Same || c.w == nil || last.frames[i] != keptFrameOf(c) {
			return nil, false
		}
	}
	for _, c := range caps {
		t.Refs().Forget(snapshot.Doc{Frame: c.id, World: c.w.ContextID()}, c.page.Gone)
	}
	for _, r := range last.snap.Refs {
		if _, ok := t.Refs().Lookup(r.Ref); !ok {
			return nil, false
		}
	}
	out := last.snap
	if o.BackendIDs {
		out.Refs = slices.Clone(last.snap.Refs) // filled in place
		fillBackendIDs(ctx, t, &out)
	}
	return &out, true
}

func keptFrameOf(c *frameCapture) keptFrame {
	f := keptFrame{id: c.id, parent: c.parent, depth: c.depth, owner: c.owner}
	if c.w != nil {
		f.world = c.w.ContextID()
	}
	if c.page != nil {
		f.seq = c.page.Seq
	}
	return f
}

// keepSnapshot keeps a whole snapshot for reuse: only one made from every
// frame's kept walk.
func (k *kept) keepSnapshot(o SnapshotOptions, caps []*frameCapture, out *Snapshot) {
	if k == nil {
		return
	}
	k.last = nil
	if !cacheable(o) {
		return
	}
	// The ref table is shared with the snapshot returned: no one changes
	// a snapshot's refs after Take (its three-index slice keeps an append
	// from reaching the kept one).
	last := &lastSnapshot{opts: o, snap: *out}
	last.snap.Refs = out.Refs[:len(out.Refs):len(out.Refs)]
	for _, c := range caps {
		if c.err != nil || c.oerr != nil || c.page == nil || c.page.Seq == 0 {
			return
		}
		last.frames = append(last.frames, keptFrameOf(c))
	}
	k.last = last
}

// errNotKept: the agent says "same" of a walk the caller does not keep.
var errNotKept = errors.New("capture: the agent's walk is not kept")

// resolve completes a page the agent sent against the frame's kept walk:
// "same" is that walk's tree, and nodes sent by key are that walk's nodes.
// It returns the page's keyed nodes (nil for a walk that is not kept), or
// an error when the kept walk lacks a key the agent used.
func resolve(p *snapshot.Page, kw *keptWalk) (map[int64]*snapshot.Node, error) {
	if p.Seq == 0 {
		return nil, nil
	}
	if p.Same {
		if kw == nil || kw.seq != p.Seq {
			return nil, errNotKept
		}
		p.Nodes = kw.nodes
		return kw.keys, nil
	}
	var prev map[int64]*snapshot.Node
	if kw != nil {
		prev = kw.keys
	}
	return p.Resolve(prev)
}
