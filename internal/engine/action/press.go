package action

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
)

// clickSettle bounds the wait for a subframe's document to see a click.
const clickSettle = 500 * time.Millisecond

// quietFor bounds the wait after input for the page to stop changing.
const quietFor = 150 * time.Millisecond

// pressCheck arms the page agent's press guard for a click on tg (see
// onGuarded and afterPress in js/40-actions.js) and returns what to call
// after the click: one agent call that
//   - in a subframe, waits (at most clickSettle) until the frame's document
//     has seen the click's release: input to a frame in another process is
//     delivered asynchronously, and what is sent next (keys for the field
//     the click focused) must not overtake it;
//   - returns an error when the press landed elsewhere (the page moved
//     under the pointer) and was stopped. The page's handlers did not see
//     it, unless they listen at the window in the capture phase, so the
//     error does not claim the click certainly did not run;
//   - otherwise, with quiet, waits (at most quietFor) until the document
//     has gone one animation frame without a DOM mutation, so that what the
//     click set off (a list opening, a re-render) is on the page when the
//     result (and a front end's report of what changed) is taken.
func pressCheck(ctx context.Context, t *engine.Surface, tg *target, quiet bool) func() error {
	var armed agentResult
	if err := tg.World.Call(ctx, "armPress", &armed, tg.Elem); err != nil || !armed.OK {
		return func() error { return nil }
	}
	var settleMs, quietMs int64
	if tg.inSubframe(t) {
		settleMs = clickSettle.Milliseconds()
	}
	if quiet {
		quietMs = quietFor.Milliseconds()
	}
	return func() error {
		var r agentResult
		if err := tg.World.Call(ctx, "afterPress", &r, armed.Seq, settleMs, quietMs); err != nil || r.Detail == "" {
			return nil
		}
		return apitype.Errorf(apitype.NotActionable,
			"%s moved as it was clicked: the press landed on %s and was stopped before the page's handlers saw it", tg.Ref, r.Detail).Executed()
	}
}

// afterInput waits, bounded by quietFor, until the document the input went
// to has gone one animation frame without a DOM mutation (after key
// presses; pressCheck does it for clicks). A page that keeps changing
// costs the bound, no more; a document that went away ends the wait.
func afterInput(ctx context.Context, w *engine.World) {
	var r agentResult
	_ = w.Call(ctx, "quiet", &r, quietFor.Milliseconds())
}
