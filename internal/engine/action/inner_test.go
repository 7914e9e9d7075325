package action_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
)

// Controls inside an option, a tab or a tree item are lines of their own
// with their refs, the host's name leaves their label out, and a click on
// each acts on it, not on its host; a control that is all of its host's
// content leaves the host one line.
func TestInnerControlsHaveTheirOwnRefs(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "inner.html")
	s := snap(t, tab)
	for _, want := range []string{
		"  - option \"Alpha\" [selected] [ref=", "\n    - button \"Remove Alpha\" [ref=",
		"  - option \"Beta\" [ref=", "\n    - button \"Remove Beta\" [ref=",
		"  - option \"Gamma\" [ref=",
		"  - tab \"Home\" [selected] [ref=", "\n    - button \"Close\" [ref=",
		"  - treeitem \"Folder\" [ref=", "\n    - link \"rename\" [url=#rename] [ref=",
	} {
		if !strings.Contains(s.Text, want) {
			t.Fatalf("snapshot lacks %q:\n%s", want, s.Text)
		}
	}
	if !regexp.MustCompile(`option "Gamma" \[ref=e\d+\]\n`).MatchString(s.Text) {
		t.Fatalf("the control that is all of its option's content was split out:\n%s", s.Text)
	}
	for _, c := range []struct{ role, name, want string }{
		{"button", "Remove Alpha", "removed Alpha"},
		{"button", "Remove Beta", "removed Beta"},
		{"button", "Close", "closed Home"},
		{"link", "rename", "rename Folder"},
		{"option", "Beta", "picked Beta"},
	} {
		if _, err := action.Click(ctxT(t), tab, ref(t, s, c.role, c.name), action.ClickOptions{}); err != nil {
			t.Fatalf("click %s %q: %v", c.role, c.name, err)
		}
		if got := status(t, tab); got != c.want {
			t.Fatalf("click %s %q: the page says %q, want %q", c.role, c.name, got, c.want)
		}
	}
}

// An element with a role but no box of its own (a display: contents
// wrapper, an option drawn by the text slotted into it) is pointed at where
// what renders it is: its box is that element's, and a click lands.
func TestWrappersWithoutABoxAreClickedWhereTheyDraw(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "contents.html")
	s := snap(t, tab)
	for _, c := range []struct{ role, name, want string }{
		{"button", "Wrapped go", "clicked-contents"},
		{"option", "Slotted pear", "clicked-slotted"},
	} {
		r := ref(t, s, c.role, c.name)
		if box, err := action.Box(ctxT(t), tab, r); err != nil || box.Width <= 0 || box.Height <= 0 {
			t.Fatalf("box of %s %q: %+v %v", c.role, c.name, box, err)
		}
		if _, err := action.Click(ctxT(t), tab, r, action.ClickOptions{}); err != nil {
			t.Fatalf("click %s %q: %v", c.role, c.name, err)
		}
		if got := status(t, tab); got != c.want {
			t.Fatalf("click %s %q: the page says %q", c.role, c.name, got)
		}
	}
}
