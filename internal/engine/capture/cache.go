package capture

import (
	"context"
	"slices"
	"sync"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// lastSnapshot is a surface's last whole snapshot, kept with the walks it
// was made from: when every frame's agent says its document is as that
// walk showed it, the snapshot is served again without decoding, merging
// or rendering anything. The agents decide what changed (see the page
// agent's last walk); this only spares the Go side the work of a result
// it already has.
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

// serves reports whether a snapshot with options o may be the kept one:
// a whole-surface snapshot with the same options, walked by the agents'
// kept walks.
func (k *lastSnapshot) serves(o SnapshotOptions) bool {
	return k != nil && cacheable(o) && k.opts == o
}

// cacheable reports options whose snapshot is kept: the whole surface,
// from the agents' kept walks.
func cacheable(o SnapshotOptions) bool {
	return !o.NoCache && !o.Viewport && o.Scope == ""
}

// seqOf is the walk number the kept snapshot has of a frame in a world
// (0: none).
func (k *lastSnapshot) seqOf(frameID string, world int64) int64 {
	if k == nil {
		return 0
	}
	for _, f := range k.frames {
		if f.id == frameID && f.world == world {
			return f.seq
		}
	}
	return 0
}

// reuse returns the kept snapshot when the capture found every frame as
// it was: the same frames in the same places and worlds, each agent
// saying "same". The ref table is brought up to date as a new snapshot
// would (gone elements' refs dropped); a ref the table no longer holds
// means the kept text is not servable.
func (k *lastSnapshot) reuse(ctx context.Context, t *engine.Tab, caps []*frameCapture) (*Snapshot, bool) {
	if k == nil || len(caps) != len(k.frames) {
		return nil, false
	}
	for i, c := range caps {
		if c.err != nil || c.oerr != nil || c.page == nil || !c.page.Same || c.w == nil || k.frames[i] != keptFrameOf(c) {
			return nil, false
		}
	}
	for _, c := range caps {
		t.Refs().Forget(snapshot.Doc{Frame: c.id, World: c.w.ContextID()}, c.page.Gone)
	}
	for _, r := range k.snap.Refs {
		if _, ok := t.Refs().Lookup(r.Ref); !ok {
			return nil, false
		}
	}
	out := k.snap
	out.Refs = slices.Clone(k.snap.Refs)
	if k.opts.BackendIDs {
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

// walkAgain asks for the tree of every frame whose agent said "same" when
// the snapshot as a whole cannot be served again (another frame changed):
// the agent sends its kept walk, without walking.
func walkAgain(ctx context.Context, t *engine.Tab, caps []*frameCapture) {
	var wg sync.WaitGroup
	for i, c := range caps {
		if c.err != nil || c.page == nil || !c.page.Same {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx := ctx
			if i > 0 {
				var cancel context.CancelFunc
				cctx, cancel = context.WithTimeout(ctx, frameTimeout)
				defer cancel()
			}
			c.page, c.w, c.err = capture(cctx, t, c.id, nil, nil)
		}()
	}
	wg.Wait()
}

// keep is what a snapshot leaves for the next one to reuse: nil unless
// every frame was captured whole, from a kept walk.
func keep(o SnapshotOptions, caps []*frameCapture, out *Snapshot) *lastSnapshot {
	if !cacheable(o) {
		return nil
	}
	k := &lastSnapshot{opts: o, snap: *out}
	k.snap.Refs = slices.Clone(out.Refs)
	for _, c := range caps {
		if c.err != nil || c.oerr != nil || c.page == nil || c.page.Seq == 0 {
			return nil
		}
		k.frames = append(k.frames, keptFrameOf(c))
	}
	return k
}
