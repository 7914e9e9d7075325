// Package person watches the pages loupe drives for a person's own input
// — a click, a key, a wheel turn or a touch in a headed window, or in a
// browser loupe attached to — which can hand the tab to that person by
// itself. It is detected, best effort, like this:
//
//   - a small script in the agent's isolated world of every new document
//     listens, in the capture phase on the window, for trusted pointerdown,
//     keydown, wheel and touchstart events, and reports each through a
//     binding that exists only in that world;
//   - loupe's own input is trusted too, so a report counts as a person's
//     only when no input of loupe's is being sent to the page and none was
//     in the last EchoWindow (engine.Tab.InputQuiet);
//   - the page cannot forge a report (its synthetic events are not
//     trusted, and it cannot reach the binding), but it can hide a real
//     one: a capture listener it registered on the window earlier may stop
//     the event before ours. Input a person gives while loupe types, or
//     within EchoWindow of it, is not seen. Documents that were loaded
//     before loupe attached are watched from their next load.
//
// The engine core sets every page session up with the watch (a session
// hook) and knows nothing of it otherwise.
package person

import (
	"context"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

const (
	binding = "__loupePerson"
	// EchoWindow is how long after loupe's own input a trusted event in
	// the page is taken for its echo, not a person's.
	EchoWindow = 750 * time.Millisecond
)

// The binding is looked up at each event: the world's scripts may run
// before the binding is in it.
var script = `(() => {
  if (globalThis.__loupePersonWatch) return;
  globalThis.__loupePersonWatch = true;
  const on = (e) => {
    if (!e.isTrusted) return;
    const send = globalThis.` + binding + `;
    if (typeof send !== "function") return;
    try { send(e.type); } catch (_) {}
  };
  for (const type of ["pointerdown", "keydown", "wheel", "touchstart"]) {
    addEventListener(type, on, { capture: true, passive: true });
  }
})();`

// Handler hears that a person gave input in a tab (the page's own
// surface), on a goroutine of its own, once for each event reported. ctx
// ends when the browser shuts down.
type Handler func(ctx context.Context, t *engine.Surface)

// WithInput makes the browser watch every page for a person's own input
// (see above) and call h when it sees some.
func WithInput(h Handler) engine.Option { return newWatcher(h).option() }

// watcher is the watch of the browsers started with one WithInput.
type watcher struct {
	h Handler
	// mu guards the counts of the trusted-input reports taken for a
	// person's input and for loupe's own echo (for tests and
	// diagnostics).
	mu              sync.Mutex
	persons, echoes int
}

func newWatcher(h Handler) *watcher { return &watcher{h: h} }

func (w *watcher) option() engine.Option { return engine.WithSessionHook(w.setup) }

// setup watches a session's documents: the binding and the script in the
// agent's world, and a tap for the binding's reports.
func (w *watcher) setup(page *engine.Surface, s engine.Session) []engine.SetupCall {
	s.Tap(func(ev cdp.Event) { w.onEvent(page, ev) }, "Runtime.bindingCalled")
	return []engine.SetupCall{
		{Method: "Runtime.addBinding", Params: map[string]string{"name": binding, "executionContextName": snapshot.WorldName}},
		{Method: "Page.addScriptToEvaluateOnNewDocument", Params: map[string]string{"source": script, "worldName": snapshot.WorldName}},
	}
}

// onEvent takes a binding report from a session of the page. It runs on
// the connection's reader (a tap).
func (w *watcher) onEvent(page *engine.Surface, ev cdp.Event) {
	var e struct {
		Name string `json:"name"`
	}
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Name != binding {
		return
	}
	echo := !page.InputQuiet(EchoWindow)
	w.mu.Lock()
	if echo {
		w.echoes++
	} else {
		w.persons++
	}
	w.mu.Unlock()
	if echo {
		return
	}
	page.Browser().Go(func(ctx context.Context) { w.h(ctx, page) })
}
