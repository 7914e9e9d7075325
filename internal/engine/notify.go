package engine

// Kinds of TabEvent.
const (
	TabOpened = "opened"
	TabClosed = "closed"
)

// TabEvent is a page root that appeared or went away.
type TabEvent struct {
	Kind      string
	SurfaceID string
	URL       string
	Title     string
}

// WithTabEvents makes the browser tell fn of every page root that appears
// or goes away — opened by an agent, by a page or by a person. fn runs on
// the connection's reader and must not block.
func WithTabEvents(fn func(TabEvent)) Option { return func(b *Browser) { b.onTab = fn } }

func (b *Browser) tellTab(kind string, t *Tab, url, title string) {
	if b.onTab != nil {
		b.onTab(TabEvent{Kind: kind, SurfaceID: t.ID, URL: url, Title: title})
	}
}
