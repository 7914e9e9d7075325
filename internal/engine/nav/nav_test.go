package nav_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"

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

// A navigation to a file the browser saves rather than shows (an
// attachment; a PDF, in the headless shell) says so and names the
// downloads as the way on, not the server; the tab keeps its page.
func TestNavigateToADownload(t *testing.T) {
	t.Parallel()
	srv := testpages.Start(t, "127.0.0.1")
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="report.bin"`)
		w.Write([]byte("report"))
	}))
	t.Cleanup(files.Close)
	tab := openTab(t, srv.Page("basic.html"))
	_, err := nav.Navigate(ctxT(t), tab, files.URL+"/report.bin")
	e := wantCode(t, err, apitype.NavigationFailed)
	if !strings.Contains(e.Message, "is a download") || len(e.Recovery) != 1 || e.Recovery[0].Op != "downloads" {
		t.Errorf("the error should say it is a download and how to go on: %+v", e)
	}
	if tab.URL() != srv.Page("basic.html") {
		t.Errorf("the tab is at %s, want its page", tab.URL())
	}
}
