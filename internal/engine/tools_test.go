package engine

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestDragHTML5AndPointer(t *testing.T) {
	tab := openTab(t, "drag.html")
	s := snap(t, tab)
	// HTML5 drag and drop: the page's drop handler sees the data its
	// dragstart set, and a trusted event.
	if _, err := tab.Drag(ctxT(t), "#item2", ref(t, s, "region", "Drop zone")); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Wait(ctxT(t), WaitOptions{Text: "dropped:item2:true"}); err != nil {
		t.Fatal(err)
	}
	// A pointer drag: the slider follows several mouse moves to the mark.
	if _, err := tab.Drag(ctxT(t), ref(t, s, "slider", "Volume"), ref(t, s, "button", "Mark")); err != nil {
		t.Fatal(err)
	}
	txt, _ := tab.PageText(ctxT(t))
	if !strings.Contains(txt, "slider:245:moves>2=true") {
		t.Fatalf("pointer drag did not move the slider to the mark: %q", txt)
	}
	// A bad target changes nothing.
	_, err := tab.Drag(ctxT(t), ref(t, s, "slider", "Volume"), "e999999")
	if e, ok := apitype.As(err); !ok || e.Code != apitype.RefNotFound || !e.NotExecuted {
		t.Fatalf("drag to a ref never issued: %v", err)
	}
}

func TestQuery(t *testing.T) {
	tab := openTab(t, "download.html")
	q := func(o QueryOptions) *QueryResult {
		t.Helper()
		r, err := tab.Query(ctxT(t), o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := q(QueryOptions{Role: "button", Name: "remove"})
	if r.Count != 3 || !r.Ambiguous || len(r.Matches) != 3 {
		t.Fatalf("buttons named like remove: %+v", r)
	}
	r = q(QueryOptions{Role: "button", Name: "Remove", Exact: true})
	if r.Count != 2 || !r.Ambiguous {
		t.Fatalf("exact Remove: %+v", r)
	}
	// Refs from a query act like refs from a snapshot.
	s := snap(t, tab)
	cart := ref(t, s, "region", "Cart")
	r = q(QueryOptions{Role: "button", Name: "Checkout", Within: cart})
	if r.Count != 1 || r.Ambiguous || r.Matches[0].Ref != ref(t, s, "button", "Checkout") {
		t.Fatalf("checkout within the cart: %+v", r)
	}
	if r := q(QueryOptions{Name: "Remove all", Within: cart}); r.Count != 0 {
		t.Fatalf("within must not leave the container: %+v", r)
	}
	// Text: the innermost element holding it, not its ancestors.
	r = q(QueryOptions{Text: "thanks for your order"})
	if r.Count != 1 || r.Matches[0].Role != "paragraph" || !strings.Contains(r.Matches[0].Text, "Order 1234 confirmed") {
		t.Fatalf("text query: %+v", r)
	}
	if _, err := tab.Query(ctxT(t), QueryOptions{}); err == nil {
		t.Fatal("an empty query must fail")
	}
}

// TestQueryTextOfNames: text a control shows as its name (a button's
// label) and a row's plain cells are found by text, innermost first.
func TestQueryTextOfNames(t *testing.T) {
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	r, err := tab.Query(ctxT(t), QueryOptions{Text: "Buried"})
	if err != nil || r.Count != 1 || r.Matches[0].Ref != ref(t, s, "button", "Buried") {
		t.Fatalf("text of a button's name: %+v %v", r, err)
	}
	tab2 := openTab(t, "spec-compact.html")
	r, err = tab2.Query(ctxT(t), QueryOptions{Text: "filled"})
	if err != nil || r.Count != 1 || r.Matches[0].Role != "row" {
		t.Fatalf("text of a row's plain cell: %+v %v", r, err)
	}
}

func TestQueryFrameOf(t *testing.T) {
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snap(t, tab)
	cross := refsByFrame(s, "button", "Go")
	var inCross string
	for f, r := range cross {
		if f != "" && strings.Contains(s.Text, "cross idle") {
			fs, _ := tab.frameState(f)
			if strings.Contains(fs.url, "label=cross") {
				inCross = r
			}
		}
	}
	if inCross == "" {
		t.Fatalf("no Go button in the cross frame: %v", cross)
	}
	r, err := tab.Query(ctxT(t), QueryOptions{Role: "button", Name: "Go"})
	if err != nil || r.Count != 3 {
		t.Fatalf("Go buttons on the page: %+v %v", r, err)
	}
	r, err = tab.Query(ctxT(t), QueryOptions{Role: "button", Name: "Go", FrameOf: inCross})
	if err != nil || r.Count != 1 || r.Matches[0].Ref != inCross || r.Matches[0].FrameID == "" {
		t.Fatalf("Go in the cross frame only: %+v %v", r, err)
	}
}

func TestDownloads(t *testing.T) {
	a := testpages.Start(t, "127.0.0.1")
	b := ownBrowser(t)
	if _, err := b.Downloads(); codeOf(err) != apitype.TransportUnsupported {
		t.Fatalf("downloads before they are enabled: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "downloads")
	if err := b.EnableDownloads(ctxT(t), dir); err != nil {
		t.Fatal(err)
	}
	tab, _ := b.Tab(ctxT(t), "")
	if _, err := tab.Navigate(ctxT(t), a.Page("download.html")); err != nil {
		t.Fatal(err)
	}
	link := ref(t, snap(t, tab), "link", "Download report")
	for i := range 2 {
		if _, err := tab.Click(ctxT(t), link, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		d, err := b.WaitDownload(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(dir, "report.txt")
		if i == 1 {
			want = filepath.Join(dir, "report (1).txt")
		}
		if d.State != "completed" || d.Path != want || d.SurfaceID != tab.ID || d.Filename != "report.txt" {
			t.Fatalf("download %d: %+v", i, d)
		}
		if data, err := os.ReadFile(d.Path); err != nil || string(data) != "quarterly report\n" {
			t.Fatalf("downloaded file: %q %v", data, err)
		}
	}
	list, _ := b.Downloads()
	if len(list) != 2 || list[0].Seq >= list[1].Seq {
		t.Fatalf("downloads list: %+v", list)
	}
	// Each finished download is returned once: with none left, a wait
	// times out.
	short, cancel := context.WithTimeout(ctxT(t), 300*time.Millisecond)
	defer cancel()
	if _, err := b.WaitDownload(short); codeOf(err) != apitype.Timeout {
		t.Fatalf("wait with every download returned: %v", err)
	}
}

// TestNoSecondClickWhileNavigating: a form posts to a slow server; a second
// click on Pay while the first submit's navigation is in flight is refused
// (STALE_REF, not executed), and the server sees one payment.
func TestNoSecondClickWhileNavigating(t *testing.T) {
	release := make(chan struct{})
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Method == http.MethodPost {
			posts.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			fmt.Fprint(w, `<p>paid</p>`)
			return
		}
		fmt.Fprint(w, `<form method="post" action="/pay"><button>Pay</button></form>`)
	}))
	defer srv.Close()
	defer close(release)
	tab := openTab(t, srv.URL+"/")
	pay := ref(t, snap(t, tab), "button", "Pay")
	if _, err := tab.Click(ctxT(t), pay, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	// The POST has reached the server, so the navigation has started.
	eventually(t, "the first POST", func() bool { return posts.Load() == 1 })
	_, err := tab.Click(ctxT(t), pay, ClickOptions{})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.StaleRef || !e.NotExecuted || !strings.Contains(e.Message, "navigating") {
		t.Fatalf("second click during the navigation: %v", err)
	}
	if n := posts.Load(); n != 1 {
		t.Fatalf("server saw %d payments", n)
	}
}

// A navigation within the document reports the new address, not the old.
func TestNavigateToFragment(t *testing.T) {
	srv := testpages.Start(t, "127.0.0.1")
	tab := openTab(t, srv.Page("basic.html"))
	for _, frag := range []string{"#account", "#prefs", "#prefs"} {
		r, err := tab.Navigate(ctxT(t), srv.Page("basic.html")+frag)
		if err != nil || r.URL != srv.Page("basic.html")+frag {
			t.Fatalf("navigate to %s: %+v %v", frag, r, err)
		}
	}
}
