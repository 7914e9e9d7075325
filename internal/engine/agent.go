package engine

import "github.com/loupe-dev/loupe/internal/engine/world"

// newWorld describes the agent's world in a frame's document, made in the
// current incarnation of the renderer that hosts the frame.
func (p *pageState) newWorld(f frame, ctxID int64) *world.World {
	var gen int64
	if inc := p.incarnationOf(f.sess); inc != nil {
		gen = inc.gen
	}
	return world.New(p.wrap(f.sess), f.sess, f.id, ctxID, f.loader, gen)
}
