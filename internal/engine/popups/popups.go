// Package popups is loupe's popup blocker: a page may open another page
// only on a gesture (a person's click or key, or loupe's trusted input),
// one page per gesture, as Chrome's own blocker allows. The full Chromium
// blocks the others itself; Chromium's headless shell, which loupe
// prefers for headless sessions (package chromium), has no blocker, and a
// page opening windows in a loop would fill the session with tabs.
//
// The browser tells, on the opener's session, that a window is about to
// open and whether a gesture opened it (Page.windowOpen), just before the
// new page attaches paused (both builds, measured: the full browser also
// tells of the windows it then blocks). A Guard keeps the last word per
// opener; the next page that opener opens is judged by it, and the word is
// used up. A page opened with no word before it (opened by the browser
// itself, or by a protocol call) is let be: the guard only refuses what
// the browser said had no gesture.
package popups

import (
	"sync"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Guard decides which new pages may open. Its zero value is ready; it is
// safe for concurrent use (and quick: it is fed on the reader goroutine).
type Guard struct {
	mu   sync.Mutex
	last map[string]bool // opener's target id: did its last window.open have a gesture?
}

// Opening records a Page.windowOpen event of the page (target id opener)
// or of a frame in it.
func (g *Guard) Opening(opener string, params jsonv2.Value) {
	var p struct {
		UserGesture bool `json:"userGesture"`
	}
	if jsonv2.Unmarshal(params, &p) != nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last == nil {
		g.last = map[string]bool{}
	}
	g.last[opener] = p.UserGesture
}

// Allow reports whether a page the opener opened may stay: not when the
// browser's last word on that opener was a window.open without a gesture.
// The word is used up either way.
func (g *Guard) Allow(opener string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	gesture, told := g.last[opener]
	delete(g.last, opener)
	return !told || gesture
}

// Forget drops what is kept of an opener that has closed.
func (g *Guard) Forget(opener string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.last, opener)
}
