package engine

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// ErrPageBlocked means the page opens JavaScript dialogs without end and
// loupe holds the last one open: its renderer is stopped in that dialog,
// so nothing can be read from it or sent to it until the tab navigates,
// reloads or closes.
var ErrPageBlocked = errors.New("the page opens dialogs without end; its last one is held open")

// A page that opens dialogs in a loop (see eventlog.FloodMeter) is not
// answered any more: its script stays stopped in the open dialog, which
// frees the tab for what a person would do — navigate away, reload, close
// (measured: a navigation then commits in 35-60 ms; answering on, the loop
// kept the renderer busy for good, and Runtime.terminateExecution, tried
// first, did not stop it: "a termination request in progress" and the
// loop ran on). While a session's dialog is held, calls to it that would
// wait on the stopped renderer fail at once with ErrPageBlocked; the hold
// ends when its document does, or when the dialog closes.

// passWhileHeld are the calls that do not need the held renderer.
var passWhileHeld = map[string]bool{
	"Page.navigate": true, "Page.reload": true, "Page.stopLoading": true, "Page.close": true,
	"Page.handleJavaScriptDialog": true, "Page.getNavigationHistory": true, "Page.navigateToHistoryEntry": true,
	"Page.bringToFront": true, "Target.closeTarget": true, "Target.activateTarget": true,
}

// hold is one session's hold state: ctx is cancelled, with cause
// ErrPageBlocked, once the session's renderer is held in a dialog.
type hold struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// holdOf is a session's hold state, made on first use. Caller holds p.mu.
func (p *pageState) holdOf(s *cdp.Session) *hold {
	if p.held == nil {
		p.held = map[*cdp.Session]*hold{}
	}
	h := p.held[s]
	if h == nil {
		ctx, cancel := context.WithCancelCause(context.Background())
		h = &hold{ctx: ctx, cancel: cancel}
		p.held[s] = h
	}
	return h
}

// holdDialogs marks a session's renderer as stopped in a held dialog:
// calls waiting on it end at once.
func (p *pageState) holdDialogs(s *cdp.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdOf(s).cancel(ErrPageBlocked)
}

// releaseHold ends a session's hold (its document went, or the dialog
// closed). Caller holds p.mu.
func (p *pageState) releaseHoldLocked(s *cdp.Session) {
	if h := p.held[s]; h != nil && h.ctx.Err() != nil {
		delete(p.held, s)
	}
}

func (p *pageState) releaseHold(s *cdp.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.releaseHoldLocked(s)
}

// heldCtx is the context a call to a session must not outlive: nil for
// calls that do not need the renderer a held dialog stops.
func (p *pageState) heldCtx(s *cdp.Session, method string) context.Context {
	if passWhileHeld[method] {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.holdOf(s).ctx
}

// Blocked reports whether the tab's page is stopped in a held dialog.
func (t *Surface) Blocked() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.held[t.sess]
	return h != nil && h.ctx.Err() != nil
}
