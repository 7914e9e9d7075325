package engine

import (
	"context"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// Dedicated workers: a page session that auto-attaches with
// waitForDebuggerOnStart pauses every dedicated worker its documents
// start, whether or not its filter lets the worker attach (Chromium 156:
// a worker left out of the filter never ran a line, and nobody could
// resume it). So the page's and each out-of-process frame's sessions
// auto-attach their dedicated workers too, and the engine resumes each
// one as it attaches, after the packages above have set it up (a worker
// hook: package network routes its requests). Nothing else of the engine
// works in workers: they have no document, no refs and no surface, and
// their console and network records carry no surface id. A worker's own
// workers (nested) are not attached, and run unpaused.

// WorkerHook sets up the protocol session of a dedicated worker a page
// (or one of its frames) started, as it attaches, while it is paused: it
// may tap the session's events and returns calls to send before the
// worker runs. page is the page's own surface.
type WorkerHook func(page *Surface, s Session) []SetupCall

// WithWorkerHook adds h to the setup of every dedicated worker.
func WithWorkerHook(h WorkerHook) Option {
	return func(b *Browser) { b.workerHooks = append(b.workerHooks, h) }
}

// attachWorker sets up a dedicated worker's session by the worker hooks
// and resumes the worker. A hook's call that fails leaves the worker
// unrouted, never paused: it is resumed whatever the setup said.
func (t *Surface) attachWorker(ctx context.Context, s *cdp.Session, waiting bool) {
	var calls []SetupCall
	for _, h := range t.b.workerHooks {
		calls = append(calls, h(t.tab, t.wrap(s))...)
	}
	// In one batch, the resume last (as a page's: frames.go); a worker
	// that went meanwhile fails them all.
	if waiting {
		calls = append(calls, SetupCall{Method: "Runtime.runIfWaitingForDebugger"})
	}
	s.Batch(ctx, calls...)
}
