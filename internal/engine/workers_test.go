package engine_test

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// Dedicated workers run, in the page and in a cross-site frame: the
// sessions' auto-attach pauses every worker they start (it did, with
// iframes alone in its filter, and none ever ran), and the engine resumes
// each one; a worker hook sets each up first.
func TestDedicatedWorkersRun(t *testing.T) {
	t.Parallel()
	hooked := make(chan string, 8)
	b := ownBrowser(t, engine.WithWorkerHook(func(page *engine.Surface, s engine.Session) []engine.SetupCall {
		hooked <- s.Target().URL
		return nil
	}))
	a, _ := startPair(t)
	tab, err := surface.NewTab(ctxT(t), b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("frames/top.html")); err != nil {
		t.Fatal(err)
	}
	worker := `new Promise(ok => {
	  const w = new Worker("data:text/javascript,postMessage('MK-WORKER-RAN')");
	  w.onmessage = e => { ok(e.data); w.terminate(); };
	})`
	if got := enginetest.EvalString(t, tab, worker); got != "MK-WORKER-RAN" {
		t.Fatalf("a worker of the page: %q", got)
	}
	if u := <-hooked; u != "data:text/javascript,postMessage('MK-WORKER-RAN')" {
		t.Errorf("the hook saw %q", u)
	}
	// The cross-site frame's surface is listed once its session has
	// attached, which no reply of the load orders: poll (bounded).
	var cross *engine.Surface
	eventually(t, "the cross-site frame", func() bool {
		for _, s := range tab.FrameSurfaces() {
			if f, ok := tab.Frame(s.Root()); ok && f.Session != tab.Session() {
				cross = s
				return true
			}
		}
		return false
	})
	if got := enginetest.EvalString(t, cross, worker); got != "MK-WORKER-RAN" {
		t.Fatalf("a worker of the cross-site frame: %q", got)
	}
}
