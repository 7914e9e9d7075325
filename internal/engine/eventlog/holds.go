package eventlog

import (
	"context"
	"errors"
	"sync"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// ErrPageBlocked means the page opens JavaScript dialogs without end and
// loupe holds the last one open: its renderer is stopped in that dialog,
// so nothing can be read from it or sent to it until the tab navigates,
// reloads or closes.
var ErrPageBlocked = errors.New("the page opens dialogs without end; its last one is held open")

// A page that opens dialogs in a loop (see FloodMeter) is not answered any
// more: its script stays stopped in the open dialog, which frees the tab
// for what a person would do — navigate away, reload, close (measured: a
// navigation then commits in 35-60 ms; answering on, the loop kept the
// renderer busy for good, and Runtime.terminateExecution, tried first,
// did not stop it: "a termination request in progress" and the loop ran
// on). While a session's dialog is held, calls to it that would wait on
// the stopped renderer fail at once with ErrPageBlocked; the hold ends
// when its document does, or when the dialog closes.

// passWhileHeld are the calls that do not need the held renderer.
var passWhileHeld = map[string]bool{
	"Page.navigate": true, "Page.reload": true, "Page.stopLoading": true, "Page.close": true,
	"Page.handleJavaScriptDialog": true, "Page.getNavigationHistory": true, "Page.navigateToHistoryEntry": true,
	"Page.bringToFront": true, "Target.closeTarget": true, "Target.activateTarget": true,
}

// Holds are the sessions of a page whose renderer loupe leaves stopped in
// a held dialog of a flood. The zero value is ready; it is safe for
// concurrent use.
type Holds struct {
	mu sync.Mutex
	m  map[*cdp.Session]*hold
}

// hold is one session's hold state: ctx is cancelled, with cause
// ErrPageBlocked, once the session's renderer is held in a dialog.
type hold struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// of is a session's hold state, made on first use. Caller holds h.mu.
func (h *Holds) of(s *cdp.Session) *hold {
	if h.m == nil {
		h.m = map[*cdp.Session]*hold{}
	}
	st := h.m[s]
	if st == nil {
		ctx, cancel := context.WithCancelCause(context.Background())
		st = &hold{ctx: ctx, cancel: cancel}
		h.m[s] = st
	}
	return st
}

// Hold marks a session's renderer as stopped in a held dialog: calls
// waiting on it end at once.
func (h *Holds) Hold(s *cdp.Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.of(s).cancel(ErrPageBlocked)
}

// Release ends a session's hold (its document went, or the dialog
// closed).
func (h *Holds) Release(s *cdp.Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st := h.m[s]; st != nil && st.ctx.Err() != nil {
		delete(h.m, s)
	}
}

// Ctx is the context a call to a session must not outlive: nil for calls
// that do not need the renderer a held dialog stops.
func (h *Holds) Ctx(s *cdp.Session, method string) context.Context {
	if passWhileHeld[method] {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.of(s).ctx
}

// Held reports whether a session's renderer is stopped in a held dialog.
func (h *Holds) Held(s *cdp.Session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.m[s]
	return st != nil && st.ctx.Err() != nil
}
