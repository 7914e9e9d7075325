package capture_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
)

// TestSpecCompactFixture is the compact transform's acceptance from the
// spec: captured twice, the text is identical, the two sibling groups stay
// distinct, blank text is gone, the semantic nodes stay (an empty table
// cell included), and every ref resolves to its original node.
func TestSpecCompactFixture(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "spec-compact.html")
	a := snap(t, tab)
	b := snap(t, tab)
	if a.Text != b.Text {
		t.Fatalf("two captures differ:\n%s\n---\n%s", a.Text, b.Text)
	}
	for _, want := range []string{
		"- generic [ref=e",
		"]: Deep text\n",
		"- generic:\n    - paragraph [ref=",
		"]: Group A\n    - button \"Alpha\" [ref=",
		"]: Group B\n    - button \"Beta\" [ref=",
		`- iframe "child frame" [ref=`, "MK-CHAIN-3",
		`- image "Logo"`, `- image "Chart"`, "- canvas",
		// The empty cell keeps its place in its row.
		"]: \"filled\" \"\"\n",
	} {
		if !strings.Contains(a.Text, want) {
			t.Errorf("missing %q in:\n%s", want, a.Text)
		}
	}
	for _, blank := range []string{"\u00a0", "\u200b", "text:  \n", "text: \n"} {
		if strings.Contains(a.Text, blank) {
			t.Errorf("blank text %q survived:\n%s", blank, a.Text)
		}
	}
	// Every ref resolves to the node it was printed for.
	for _, r := range a.Refs {
		st, err := action.State(ctxT(t), tab, r.Ref)
		if err != nil {
			t.Fatalf("%s: %v", r.Ref, err)
		}
		if st.Role != r.Role {
			t.Errorf("%s was printed as %s, resolves to a %s", r.Ref, r.Role, st.Role)
		}
	}
}
