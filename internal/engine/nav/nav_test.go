package nav_test

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// A navigation within the document reports the new address, not the old.
func TestNavigateToFragment(t *testing.T) {
	t.Parallel()
	srv := testpages.Start(t, "127.0.0.1")
	tab := openTab(t, srv.Page("basic.html"))
	for _, frag := range []string{"#account", "#prefs", "#prefs"} {
		r, err := nav.Navigate(ctxT(t), tab, srv.Page("basic.html")+frag)
		if err != nil || r.URL != srv.Page("basic.html")+frag {
			t.Fatalf("navigate to %s: %+v %v", frag, r, err)
		}
	}
}
