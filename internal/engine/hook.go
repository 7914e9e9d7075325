package engine

import (
	"context"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// Packages above the core can watch every page's documents without the
// core knowing what for (package person watches for a person's own
// input): a session hook sets up each page session as it attaches, and
// the core keeps the one thing only it can know, whether loupe's own
// input is being sent to the page.

// SessionHook sets up one protocol session of a page — the page's own or
// an out-of-process frame's — as it attaches, while it is still paused:
// it may tap the session's events, and returns calls to send with the
// engine's own setup, before the page runs (so they hold from the first
// document). page is the page's own surface.
type SessionHook func(page *Surface, s Session) []SetupCall

// SetupCall is one protocol call of a session's setup, sent in one
// batch with the rest (cdp.Session.Batch); its Result is left nil.
type SetupCall = cdp.Command

// WithSessionHook adds h to the setup of every page session.
func WithSessionHook(h SessionHook) Option {
	return func(b *Browser) { b.hooks = append(b.hooks, h) }
}

// Browser is the browser the surface is in, for packages that start work
// of the browser's from a session hook (Browser.Go).
func (t *Surface) Browser() *Browser { return t.b }

// Go runs fn on a goroutine of the browser's, as the crash handler runs:
// ctx ends when the browser shuts down, which waits for fn to return. Once
// shutdown has begun it does nothing. It is for handlers that packages
// above the core call from their taps (package person).
func (b *Browser) Go(fn func(ctx context.Context)) {
	b.mu.Lock()
	if b.closing {
		b.mu.Unlock()
		return
	}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		fn(b.bg)
	}()
}

// inputSent brackets loupe's own input to the page (see InputQuiet).
func (p *pageState) inputSent(method string) func() {
	if !strings.HasPrefix(method, "Input.") {
		return func() {}
	}
	p.mu.Lock()
	p.inputBusy++
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		p.inputBusy--
		p.inputLast = time.Now()
		p.mu.Unlock()
	}
}

// InputQuiet reports whether no input of loupe's own (an Input.* call on
// any of the page's sessions) is being sent to the page, and none ended
// within d: loupe's input is trusted, so package person takes a trusted
// event in the page for a person's only then, not for loupe's echo.
func (t *Surface) InputQuiet(d time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inputBusy == 0 && time.Since(t.inputLast) >= d
}
