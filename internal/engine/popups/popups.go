// Package popups is loupe's popup blocker, for a browser without one of
// its own (Chromium's headless shell, which loupe prefers for headless
// sessions: package chromium): a page may open another page only on a
// gesture (a person's click or key, or loupe's trusted input), one page
// per gesture, as the full Chromium's blocker allows. Without it a page
// opening windows in a loop fills the session with tabs.
//
// The page's renderer tells, on its own session, that a window is about
// to open and whether a gesture opened it (Page.windowOpen); the browser
// then attaches the new page, paused. The two come from different
// processes, so either may arrive first (a loaded machine reorders them),
// but each window has one of each, in the order the page opened them. A
// Guard pairs them per opener, first with first, and decides each page
// when both are in. A page whose word has not come within the Guard's
// Wait is let be: it refuses only what the renderer said had no gesture.
// Script stops window.open without a gesture before any window exists
// (blocker.go); the Guard decides the windows opened otherwise.
package popups

import (
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// DefaultWait bounds how long a page waits, paused, for its opener's
// word (the two arrive milliseconds apart).
const DefaultWait = 2 * time.Second

// Guard pairs windows told of with pages attached. Its zero value is
// ready; it is safe for concurrent use, and quick (it is fed on the
// connection's reader goroutine). A nil Guard (a browser that blocks
// popups itself) is told nothing and forgets nothing.
type Guard struct {
	Wait time.Duration // DefaultWait when zero; set before first use

	mu    sync.Mutex
	words map[string][]bool     // opener's target id → gestures told, no page yet
	pages map[string][]*waiting // opener's target id → pages attached, no word yet
}

type waiting struct {
	decide func(allow bool)
	timer  *time.Timer
}

// Told records a Page.windowOpen event of the page (target id opener) or
// of a frame in it.
func (g *Guard) Told(opener string, params jsonv2.Value) {
	if g == nil {
		return
	}
	var p struct {
		UserGesture bool `json:"userGesture"`
	}
	if jsonv2.Unmarshal(params, &p) != nil {
		return
	}
	g.mu.Lock()
	if w := g.pop(opener); w != nil {
		g.mu.Unlock()
		w.timer.Stop()
		w.decide(p.UserGesture)
		return
	}
	if g.words == nil {
		g.words = map[string][]bool{}
	}
	g.words[opener] = append(g.words[opener], p.UserGesture)
	g.mu.Unlock()
}

// Attached decides a page the opener opened: decide(allow) is called once,
// now if its word is in, else when the word comes or Wait has passed
// (then allow is true), on the goroutine of that event or timer.
func (g *Guard) Attached(opener string, decide func(allow bool)) {
	g.mu.Lock()
	if words := g.words[opener]; len(words) > 0 {
		g.words[opener] = words[1:]
		g.mu.Unlock()
		decide(words[0])
		return
	}
	if g.pages == nil {
		g.pages = map[string][]*waiting{}
	}
	w := &waiting{decide: decide}
	g.pages[opener] = append(g.pages[opener], w)
	wait := g.Wait
	if wait == 0 {
		wait = DefaultWait
	}
	w.timer = time.AfterFunc(wait, func() {
		g.mu.Lock()
		found := g.remove(opener, w)
		g.mu.Unlock()
		if found {
			w.decide(true)
		}
	})
	g.mu.Unlock()
}

// Forget drops what is kept of an opener that has closed: its pages still
// waiting are let be (no word will come).
func (g *Guard) Forget(opener string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	ws := g.pages[opener]
	delete(g.pages, opener)
	delete(g.words, opener)
	g.mu.Unlock()
	for _, w := range ws {
		w.timer.Stop() // (a timer already run finds w gone, and leaves it)
		w.decide(true)
	}
}

// pop takes the opener's first waiting page. Caller holds g.mu.
func (g *Guard) pop(opener string) *waiting {
	ws := g.pages[opener]
	if len(ws) == 0 {
		return nil
	}
	g.pages[opener] = ws[1:]
	return ws[0]
}

// remove takes w from the opener's waiting pages, reporting whether it
// was there. Caller holds g.mu.
func (g *Guard) remove(opener string, w *waiting) bool {
	for i, x := range g.pages[opener] {
		if x == w {
			g.pages[opener] = append(g.pages[opener][:i:i], g.pages[opener][i+1:]...)
			return true
		}
	}
	return false
}
