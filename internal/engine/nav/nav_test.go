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

// A navigation reports the HTTP status of the document it loaded: an
// error status too, and none for a document that came from no response.
func TestNavigateReportsTheStatus(t *testing.T) {
	t.Parallel()
	srv := testpages.Start(t, "127.0.0.1")
	tab := openTab(t, "")
	for _, c := range []struct {
		url  string
		want int64
	}{{srv.Page("basic.html"), 200}, {srv.Page("no-such-page.html"), 404}, {"data:text/html,x", 0}} {
		r, err := nav.Navigate(ctxT(t), tab, c.url)
		if err != nil || r.Status != c.want {
			t.Errorf("navigate to %s: %+v %v, want status %d", c.url, r, err, c.want)
		}
	}
	r, err := nav.Reload(ctxT(t), tab)
	if err != nil || r.Status != 0 {
		t.Errorf("reload of a data: page: %+v %v", r, err)
	}
	if _, err := nav.Navigate(ctxT(t), tab, srv.Page("no-such-page.html")); err != nil {
		t.Fatal(err)
	}
	if r, err := nav.Reload(ctxT(t), tab); err != nil || r.Status != 404 {
		t.Errorf("reload of a missing page: %+v %v", r, err)
	}
}
