package engine

import "github.com/loupe-dev/loupe/internal/cdp"

// Kinds of TabEvent.
const (
	TabOpened  = "opened"
	TabClosed  = "closed"
	TabChanged = "changed" // its address or title changed, or it stopped loading
)

// TabEvent is a page root that appeared, changed or went away.
type TabEvent struct {
	Kind      string
	SurfaceID string
	URL       string
	Title     string
}

// WithTabEvents makes the browser tell fn of every page root that appears
// or goes away — opened by an agent, by a page or by a person — and of
// each change of its address or title and each end of its loading. fn
// runs on the connection's reader and must not block.
func WithTabEvents(fn func(TabEvent)) Option { return func(b *Browser) { b.onTab = fn } }

func (b *Browser) tellTab(kind string, t *Surface, url, title string) {
	if b.onTab != nil {
		b.onTab(TabEvent{Kind: kind, SurfaceID: t.ID, URL: url, Title: title})
	}
}

// BrowserSession is the browser-level protocol session (for the domains
// that belong to the browser, not a page: downloads).
func (b *Browser) BrowserSession() *cdp.Session { return b.conn.Browser() }

// FrameSurface finds the surface of a frame in any page, and that page's
// address ("" when no page has the frame).
func (b *Browser) FrameSurface(frameID string) (surface, pageURL string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.byTarget {
		t.mu.Lock()
		_, ok := t.frames[frameID]
		s := ""
		if ok {
			s = t.surfaceOf(frameID)
		}
		t.mu.Unlock()
		if s != "" {
			return s, t.URL()
		}
	}
	return "", ""
}
