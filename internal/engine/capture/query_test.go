package capture_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/capture"
)

func TestQuery(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "download.html")
	q := func(o capture.QueryOptions) *capture.QueryResult {
		t.Helper()
		r, err := capture.Query(ctxT(t), tab, o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := q(capture.QueryOptions{Role: "button", Name: "remove"})
	if r.Count != 3 || !r.Ambiguous || len(r.Matches) != 3 {
		t.Fatalf("buttons named like remove: %+v", r)
	}
	r = q(capture.QueryOptions{Role: "button", Name: "Remove", Exact: true})
	if r.Count != 2 || !r.Ambiguous {
		t.Fatalf("exact Remove: %+v", r)
	}
	// Refs from a query act like refs from a snapshot.
	s := snap(t, tab)
	cart := ref(t, s, "region", "Cart")
	r = q(capture.QueryOptions{Role: "button", Name: "Checkout", Within: cart})
	if r.Count != 1 || r.Ambiguous || r.Matches[0].Ref != ref(t, s, "button", "Checkout") {
		t.Fatalf("checkout within the cart: %+v", r)
	}
	if r := q(capture.QueryOptions{Name: "Remove all", Within: cart}); r.Count != 0 {
		t.Fatalf("within must not leave the container: %+v", r)
	}
	// Text: the innermost element holding it, not its ancestors.
	r = q(capture.QueryOptions{Text: "thanks for your order"})
	if r.Count != 1 || r.Matches[0].Role != "paragraph" || !strings.Contains(r.Matches[0].Text, "Order 1234 confirmed") {
		t.Fatalf("text query: %+v", r)
	}
	if _, err := capture.Query(ctxT(t), tab, capture.QueryOptions{}); err == nil {
		t.Fatal("an empty query must fail")
	}
}

// TestQueryTextOfNames: text a control shows as its name (a button's
// label) and a row's plain cells are found by text, innermost first.
func TestQueryTextOfNames(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	r, err := capture.Query(ctxT(t), tab, capture.QueryOptions{Text: "Buried"})
	if err != nil || r.Count != 1 || r.Matches[0].Ref != ref(t, s, "button", "Buried") {
		t.Fatalf("text of a button's name: %+v %v", r, err)
	}
	tab2 := openTab(t, "spec-compact.html")
	r, err = capture.Query(ctxT(t), tab2, capture.QueryOptions{Text: "filled"})
	if err != nil || r.Count != 1 || r.Matches[0].Role != "row" {
		t.Fatalf("text of a row's plain cell: %+v %v", r, err)
	}
}

func TestQueryFrameOf(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snap(t, tab)
	cross := refsByFrame(s, "button", "Go")
	var inCross string
	for f, r := range cross {
		if f != "" && strings.Contains(s.Text, "cross idle") {
			fs, _ := tab.Frame(f)
			if strings.Contains(fs.URL, "label=cross") {
				inCross = r
			}
		}
	}
	if inCross == "" {
		t.Fatalf("no Go button in the cross frame: %v", cross)
	}
	r, err := capture.Query(ctxT(t), tab, capture.QueryOptions{Role: "button", Name: "Go"})
	if err != nil || r.Count != 3 {
		t.Fatalf("Go buttons on the page: %+v %v", r, err)
	}
	r, err = capture.Query(ctxT(t), tab, capture.QueryOptions{Role: "button", Name: "Go", FrameOf: inCross})
	if err != nil || r.Count != 1 || r.Matches[0].Ref != inCross || r.Matches[0].FrameID == "" {
		t.Fatalf("Go in the cross frame only: %+v %v", r, err)
	}
}
