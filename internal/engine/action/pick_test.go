package action_test

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
)

// A point of the viewport names the element drawn there, in the top
// document, a same-origin frame and a cross-site (out-of-process) frame
// alike: the centre of each Go button's box picks that button's ref.
func TestPickNamesTheElementAtAPoint(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snap(t, tab)
	_, _, goRefs := frameIDs(t, s, "button", "Go", 3)
	for frame, ref := range goRefs {
		box, err := action.Box(ctxT(t), tab, ref)
		if err != nil {
			t.Fatal(err)
		}
		p, err := action.Pick(ctxT(t), tab, box.X+box.Width/2, box.Y+box.Height/2)
		if err != nil {
			t.Fatalf("pick at %s's centre: %v", ref, err)
		}
		if p.Ref != ref || p.Line != `button "Go" [ref=`+ref+`]` || p.FrameID != frame {
			t.Errorf("pick at %s's centre (frame %q): %+v", ref, frame, p)
		}
	}
	// Far outside the page nothing is named.
	if _, err := action.Pick(ctxT(t), tab, 5000, 5000); err == nil {
		t.Error("a pick outside the viewport named something")
	}
}
