package capture

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// capture has the frame's agent walk its document. When the frame's last
// walk is kept, the agent is told so and sends only what changed since
// (resolve fills in the rest); should the kept walk lack what the agent
// refers to, the agent is asked again for its whole tree. Custom elements
// whose semantics come from their internals are read from Chromium's
// accessibility tree around the walk (see internals.go).
func capture(ctx context.Context, t *engine.Surface, frameID string, agent map[string]any, kept *kept, ax *internals) (*snapshot.Page, map[int64]*snapshot.Node, *world.World, error) {
	w, err := t.World(ctx, frameID)
	if err != nil {
		return nil, nil, nil, err
	}
	if agent == nil {
		agent = map[string]any{}
	}
	if answers := ax.before(ctx, frameID, w); len(answers) > 0 {
		agent = withOpt(agent, "ax", answers)
	}
	p, keys, err := walkResolved(ctx, w, agent, kept.walkOf(frameID, w.ContextID()))
	if err != nil {
		return nil, nil, nil, err
	}
	ax.forget(frameID, w.ContextID(), p.Gone)
	ax.forget(frameID, w.ContextID(), p.AXPlain)
	// Custom elements met for the first time: asked about, then walked
	// again with the answers, from the walk just made (only they and what
	// holds them are walked again).
	for round := 0; len(p.AX) > 0 && round < maxAXRounds; round++ {
		answers := ax.ask(ctx, frameID, w, p.AX)
		if len(answers) == 0 {
			break
		}
		var prev *keptWalk
		if p.Seq != 0 {
			prev = &keptWalk{world: w.ContextID(), seq: p.Seq, nodes: p.Nodes, keys: keys}
		}
		again, againKeys, err := walkResolved(ctx, w, withOpt(agent, "ax", answers), prev)
		if err != nil {
			return nil, nil, nil, err
		}
		ax.forget(frameID, w.ContextID(), again.Gone)
		ax.forget(frameID, w.ContextID(), again.AXPlain)
		// The first walk's gone elements are this capture's too.
		again.Gone = append(p.Gone, again.Gone...)
		p, keys = again, againKeys
	}
	return p, keys, w, nil
}

// walkResolved has the agent walk, told of the kept walk kw if any, and
// completes the page against it; when kw lacks what the agent refers to,
// the agent is asked again for its whole tree.
func walkResolved(ctx context.Context, w *world.World, agent map[string]any, kw *keptWalk) (*snapshot.Page, map[int64]*snapshot.Node, error) {
	opts := agent
	if kw != nil {
		opts = withOpt(agent, "have", kw.seq)
	}
	p, err := walk(ctx, w, opts)
	if err != nil {
		return nil, nil, err
	}
	keys, err := resolve(p, kw)
	if err != nil {
		if p, err = walk(ctx, w, agent); err != nil {
			return nil, nil, err
		}
		if keys, err = resolve(p, nil); err != nil {
			return nil, nil, err
		}
	}
	return p, keys, nil
}

// withOpt returns a copy of the agent options with one more (or another
// value for one): the caller's map is shared by concurrent frames.
func withOpt(agent map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(agent)+1)
	for k, v := range agent {
		out[k] = v
	}
	out[k] = v
	return out
}

func walk(ctx context.Context, w *world.World, agent map[string]any) (*snapshot.Page, error) {
	var raw string
	if err := w.Call(ctx, "snapshot", &raw, agent); err != nil {
		return nil, err
	}
	p, err := snapshot.DecodePage(raw)
	if err != nil {
		return nil, err
	}
	if p.Error == "stale" {
		return nil, engine.ErrDocumentGone
	}
	return p, nil
}
