package engine_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// Every way a page opens a tab gives one an agent can use: a link with
// target=_blank and window.open with noopener (a browsing context of its
// own, whose renderer starts only once the paused page runs — it hung at
// setup, never loading, until the page was resumed without waiting for
// the domains' answers), and window.open with an opener. Each loads its
// page, names the tab that opened it, snapshots, and takes a click (which
// closes it).
func TestPagesOpenedByThePage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ button, role, via string }{
		{"Open in a new tab", "link", "via=link"},
		{"Open without opener", "button", "via=noopener"},
		{"Open with opener", "button", "via=opener"},
	} {
		t.Run(c.via, func(t *testing.T) {
			t.Parallel()
			tab := openTab(t, "surfaces/opens.html")
			b := tab.Browser()
			if _, err := action.Click(ctxT(t), tab, ref(t, snap(t, tab), c.role, c.button), action.ClickOptions{}); err != nil {
				t.Fatal(err)
			}
			var popup *engine.Surface
			eventually(t, "the new tab loading its page", func() bool {
				for _, p := range b.Pages() {
					if strings.Contains(p.URL(), c.via) && p.Usable() {
						popup = p
						return true
					}
				}
				return false
			})
			if o := surface.Opener(popup); o != tab.ID {
				t.Errorf("the new tab's opener: %q, want %s", o, tab.ID)
			}
			var s *capture.Snapshot
			eventually(t, "the new tab's page in its snapshot", func() bool {
				var err error
				s, err = capture.Take(ctxT(t), popup, capture.SnapshotOptions{})
				return err == nil && strings.Contains(s.Text, `button "Close me"`)
			})
			if _, err := action.Click(ctxT(t), popup, ref(t, s, "button", "Close me"), action.ClickOptions{}); err != nil {
				t.Fatalf("a click in the new tab: %v", err)
			}
			// The page closes itself on that click.
			eventually(t, "the new tab closing itself", func() bool {
				select {
				case <-popup.Closed():
					return true
				default:
					return false
				}
			})
		})
	}
}
