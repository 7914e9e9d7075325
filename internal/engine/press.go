package engine

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// clickSettle bounds the wait for a cross-process frame to see a click.
const clickSettle = 500 * time.Millisecond

// inputSettler, called before a click into a subframe, returns a function
// to call after it: it waits (bounded) until the frame's document has seen
// the click's release. Input to a frame in another process is delivered
// asynchronously, and what the agent sends next (keys for the field the
// click focused) must not overtake it. A frame that does not report in
// time delays nothing further: the click was sent either way.
func (t *Tab) inputSettler(ctx context.Context, tg *resolved) func() {
	if !tg.inSubframe(t) {
		return func() {}
	}
	var before agentResult
	if err := t.agentCall(ctx, tg.w, "inputSeq", &before); err != nil {
		return func() {}
	}
	return func() {
		var r agentResult
		_ = t.agentCall(ctx, tg.w, "awaitInput", &r, before.Seq, clickSettle.Milliseconds())
	}
}

// guardPress arms the page agent's press guard for a click on tg (see
// onGuarded in js/40-actions.js) and returns the check to run after the
// click: an error when the press landed elsewhere (the page moved under
// the pointer) and was stopped. The page's own handlers did not see it,
// unless they listen at the window in the capture phase; so the error
// does not claim the click certainly did not run.
func (t *Tab) guardPress(ctx context.Context, tg *resolved) func() error {
	var armed agentResult
	if err := t.agentCall(ctx, tg.w, "armGuard", &armed, tg.elem); err != nil || !armed.OK {
		return func() error { return nil }
	}
	return func() error {
		var r agentResult
		if err := t.agentCall(ctx, tg.w, "guardResult", &r); err != nil || r.Detail == "" {
			return nil
		}
		return apitype.Errorf(apitype.NotActionable,
			"%s moved as it was clicked: the press landed on %s and was stopped before the page's handlers saw it", tg.ref, r.Detail).Executed()
	}
}

// quietFor bounds the wait after a click for the page to stop changing.
const quietFor = 150 * time.Millisecond

// afterInput waits, bounded by quietFor, until the document the input went
// to has gone one animation frame without a DOM mutation, so that what the
// input set off (a list opening, a re-render) is on the page when the
// action's result (and a front end's report of what changed) is taken. A
// page that keeps changing costs the bound, no more; a document that went
// away (a navigation) ends the wait.
func (t *Tab) afterInput(ctx context.Context, w *world) {
	var r agentResult
	_ = t.agentCall(ctx, w, "quiet", &r, quietFor.Milliseconds())
}
