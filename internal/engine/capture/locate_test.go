package capture_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

func TestSimilarRefsAfterNavigation(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "locators/checkout1.html")
	s := locSnap(t, tab)
	old := refsNamed(s, "button", "Checkout")[0].Ref
	b := binding(t, tab, old)
	if b.Locator != `role=button[name="Checkout"]` {
		t.Fatalf("locator %q", b.Locator)
	}
	if _, err := nav.Navigate(ctxT(t), tab, enginetest.Page("locators/checkout2.html")); err != nil {
		t.Fatal(err)
	}
	_, err := action.Click(ctxT(t), tab, old, action.ClickOptions{})
	wantCode(t, err, apitype.StaleRef)

	release := enginetest.Hold(t, tab)
	similar := capture.SimilarRefs(ctxT(t), tab, b)
	release()
	if len(similar) != 1 || similar[0] == old {
		t.Fatalf("similar refs %v", similar)
	}
	// A STALE_REF error names it, and nothing was clicked.
	release = enginetest.Hold(t, tab)
	err = capture.WithSimilar(ctxT(t), tab, apitype.Errorf(apitype.StaleRef, "%s is stale: its document has navigated since the snapshot", old), b)
	release()
	if e := wantCode(t, err, apitype.StaleRef); len(e.SimilarRefs) != 1 || e.SimilarRefs[0] != similar[0] || !e.NotExecuted {
		t.Fatalf("stale error %+v", e)
	}
	// The new ref is the Checkout button of the new document, and stays
	// its ref in the next snapshot.
	s2 := locSnap(t, tab)
	if got := refsNamed(s2, "button", "Checkout"); len(got) != 1 || got[0].Ref != similar[0] {
		t.Fatalf("new snapshot's Checkout %v, similar %v", got, similar)
	}

	// Nothing to offer: no locator, or one that now matches several.
	release = enginetest.Hold(t, tab)
	defer release()
	if got := capture.SimilarRefs(ctxT(t), tab, &snapshot.Binding{Ref: "e999999"}); got != nil {
		t.Errorf("no locator: %v", got)
	}
	if got := capture.SimilarRefs(ctxT(t), tab, &snapshot.Binding{Ref: "e999999", Locator: `role=button`}); got != nil {
		t.Errorf("an ambiguous locator: %v", got)
	}
}

func TestLocatorsBadInput(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"e12", "role=button[name=x]", "text=hi"} {
		if _, err := locator.ParseLocator(s); err == nil {
			t.Errorf("%q parsed", s)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
			t.Errorf("error %q does not name the input", err)
		}
	}
}

// TestRoleQueryMatchesSnapshot holds the agent's role query to the
// snapshot walk: on every fixture, for every role the snapshot shows, the
// query finds exactly the elements the snapshot shows with that role, with
// the same names (a snapshot with every element numbered and named).
func TestRoleQueryMatchesSnapshot(t *testing.T) {
	t.Parallel()
	pages := []string{
		"basic.html", "form.html", "form2.html", "controls.html", "dupes.html", "names.html", "aria.html",
		"landmarks.html", "patterns.html", "shadow.html", "tables.html", "media.html", "modal.html", "compact.html",
		"locators/repeated.html", "locators/hidden.html", "locators/wrapper.html",
	}
	tab := openTab(t, "") // for every page in turn (see enginetest.Goto)
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			gotoPage(t, tab, p)
			page, w, err := agentSnapshotAll(ctxT(t), tab)
			if err != nil {
				t.Fatal(err)
			}
			type rn struct{ role, name string }
			want := map[string]map[int64]rn{}
			var order []string
			snapshot.Walk(page.Nodes, func(n *snapshot.Node, _ int) bool {
				if n.HasState("aria-hidden") {
					// Queries follow the accessibility tree, where an
					// aria-hidden subtree does not exist.
					return false
				}
				if n.Role == "generic" && !n.Control && n.Name == "" {
					// A plain line of text has a ref but no role to
					// query by.
					return true
				}
				if n.Elem != 0 && !n.IsText() {
					if want[n.Role] == nil {
						want[n.Role] = map[int64]rn{}
						order = append(order, n.Role)
					}
					want[n.Role][n.Elem] = rn{n.Role, n.Name}
				}
				return true
			})
			for _, role := range order {
				var r capture.QueryReply
				if err := w.Call(ctxT(t), "query", &r, capture.StepSpec(locator.Step{Kind: locator.StepRole, Role: role})); err != nil || !r.OK {
					t.Fatalf("query role=%s: %v %+v", role, err, r)
				}
				got := map[int64]rn{}
				for _, m := range r.M {
					got[m.I] = rn{m.R, m.N}
				}
				for id, x := range want[role] {
					if g, ok := got[id]; !ok {
						t.Errorf("role=%s: the query misses element %d %q", role, id, x.name)
					} else if g != x {
						t.Errorf("role=%s: element %d is %+v in the query, %+v in the snapshot", role, id, g, x)
					}
				}
				for id, g := range got {
					if _, ok := want[role][id]; !ok {
						t.Errorf("role=%s: the query finds element %d %q the snapshot does not show", role, id, g.name)
					}
				}
				// The name filter: one named query per role.
				for _, x := range want[role] {
					var rr capture.QueryReply
					if err := w.Call(ctxT(t), "query", &rr, capture.StepSpec(locator.RoleStep(role, x.name))); err != nil || !rr.OK {
						t.Fatalf("query: %v", err)
					}
					n := 0
					for _, y := range want[role] {
						if y.name == x.name {
							n++
						}
					}
					if len(rr.M) != n {
						t.Errorf("role=%s[name=%q]: %d matches, the snapshot shows %d", role, x.name, len(rr.M), n)
					}
					break
				}
			}
			if len(order) == 0 {
				t.Fatal("the snapshot shows no elements")
			}
			t.Logf("%d roles compared", len(order))
		})
	}
}
