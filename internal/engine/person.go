package engine

import (
	"strings"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// A person's own input in a page loupe drives — a click, a key, a wheel
// turn or a touch in a headed window, or in a browser loupe attached to —
// can hand the tab to that person by itself (WithPersonInput). It is
// detected, best effort, like this:
//
//   - a small script in the agent's isolated world of every new document
//     listens, in the capture phase on the window, for trusted pointerdown,
//     keydown, wheel and touchstart events, and reports each through a
//     binding that exists only in that world;
//   - loupe's own input is trusted too, so a report counts as a person's
//     only when no input of loupe's is being sent to the page and none was
//     in the last EchoWindow;
//   - the page cannot forge a report (its synthetic events are not
//     trusted, and it cannot reach the binding), but it can hide a real
//     one: a capture listener it registered on the window earlier may stop
//     the event before ours. Input a person gives while loupe types, or
//     within EchoWindow of it, is not seen. Documents that were loaded
//     before loupe attached are watched from their next load.
const (
	personBinding = "__loupePerson"
	// EchoWindow is how long after loupe's own input a trusted event in
	// the page is taken for its echo, not a person's.
	EchoWindow = 750 * time.Millisecond
)

// The binding is looked up at each event: the world's scripts may run
// before the binding is in it.
var personScript = `(() => {
  if (globalThis.__loupePersonWatch) return;
  globalThis.__loupePersonWatch = true;
  const on = (e) => {
    if (!e.isTrusted) return;
    const send = globalThis.` + personBinding + `;
    if (typeof send !== "function") return;
    try { send(e.type); } catch (_) {}
  };
  for (const type of ["pointerdown", "keydown", "wheel", "touchstart"]) {
    addEventListener(type, on, { capture: true, passive: true });
  }
})();`

// PersonHandler hears that a person gave input in a tab, on a goroutine
// of its own, once for each event reported. ctx ends when the browser
// shuts down.
type PersonHandler = CrashHandler

// WithPersonInput makes the browser watch every page for a person's own
// input (see above) and call h when it sees some.
func WithPersonInput(h PersonHandler) Option { return func(b *Browser) { b.onPerson = h } }

// personCalls are the setup calls that watch a session's documents.
func personCalls() []struct {
	method string
	params any
} {
	return []struct {
		method string
		params any
	}{
		{"Runtime.addBinding", map[string]string{"name": personBinding, "executionContextName": snapshot.WorldName}},
		{"Page.addScriptToEvaluateOnNewDocument", map[string]string{"source": personScript, "worldName": snapshot.WorldName}},
	}
}

// inputSent brackets loupe's own input to the page: reports of trusted
// events during it, and for EchoWindow after it, are its echo.
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

// onPersonEvent takes a binding report from a session of the page.
func (t *Tab) onPersonEvent(s *cdp.Session, ev cdp.Event) {
	var e struct {
		Name string `json:"name"`
	}
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Name != personBinding {
		return
	}
	t.mu.Lock()
	echo := t.inputBusy > 0 || time.Since(t.inputLast) < EchoWindow
	if echo {
		t.echoes++
	} else {
		t.persons++
	}
	t.mu.Unlock()
	if echo {
		return
	}
	b := t.b
	b.mu.Lock()
	h := b.onPerson
	if h == nil || b.closing {
		b.mu.Unlock()
		return
	}
	b.wg.Add(1)
	b.mu.Unlock()
	go func() {
		defer b.wg.Done()
		h(b.bg, t.tab)
	}()
}
