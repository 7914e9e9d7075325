package capture_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// internalsLines are the lines of internals.html's controls, whose role,
// name and states are set on their ElementInternals only, as Chromium's
// accessibility tree has them (indent, then the line up to its ref).
var internalsLines = []string{
	`- radiogroup "Size" [ref=`,
	`  - radio "Small" [ref=`,
	`  - radio "Medium" [checked] [ref=`,
	`  - radio "Large" [disabled] [ref=`,
	`- switch "Dark mode" [ref=`,
	`- listbox "Fruit" [ref=`,
	`  - option "Apple" [ref=`,
	`  - option "Banana" [selected] [ref=`,
	`  - option "Cherry" [ref=`,
	`- button "Close dialog" [ref=`,
	`- checkbox "Send me the newsletter" [ref=`,
	`- button "More options" [collapsed] [ref=`,
	`- toolbar "Formatting" [ref=`,
	`  - button "Bold" [ref=`,
	`- note "Plain note" [ref=`,
}

// Custom elements that say what they are only through ElementInternals
// print with the role, name and states Chromium gives them, each a control
// with a ref and a role locator that finds it; the text inside a named
// button is not printed again.
func TestInternalsGiveRoleNameAndStates(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "internals.html")
	s := snapWith(t, tab, capture.SnapshotOptions{Locators: true})
	for _, want := range internalsLines {
		if !strings.Contains(s.Text, "\n"+want) {
			t.Errorf("snapshot lacks %q", want)
		}
	}
	if strings.Contains(s.Text, "✕") || strings.Contains(s.Text, "generic") {
		t.Errorf("a custom element printed as a container, or a named button's content printed:\n%s", s.Text)
	}
	if t.Failed() {
		t.Fatalf("snapshot:\n%s", s.Text)
	}
	for _, c := range []struct{ role, name string }{
		{"switch", "Dark mode"}, {"radio", "Small"}, {"option", "Banana"}, {"checkbox", "Send me the newsletter"}, {"button", "Bold"},
	} {
		r := ref(t, s, c.role, c.name)
		for _, ri := range s.Refs {
			if ri.Ref == r && !ri.Control {
				t.Errorf("%s %q is not marked a control", c.role, c.name)
			}
		}
		loc := `role=` + c.role + `[name="` + c.name + `"]`
		if !strings.Contains(s.Text, "[ref="+r+"] [locator=") {
			t.Errorf("%s has no locator:\n%s", r, s.Text)
		}
		el, err := capture.Resolve(ctxT(t), tab, loc)
		if err != nil || el.Ref != r {
			t.Errorf("locator %s: %+v, %v; want %s", loc, el, err, r)
		}
	}
	if n, err := capture.InternalsTracked(ctxT(t), tab); err != nil || n != 14 {
		t.Errorf("%d custom elements tracked (%v), want the 14 whose internals say something (not x-plain)", n, err)
	}
}

// A page without custom elements asks Chromium nothing: its walk names no
// element to ask about, and nothing is tracked to ask about again.
func TestNoCustomElementsNoAccessibilityCalls(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "controls.html")
	snap(t, tab)
	snap(t, tab)
	w, err := tab.World(ctxT(t), tab.Root())
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := w.Call(ctxT(t), "snapshot", &raw, map[string]any{"noCache": true}); err != nil {
		t.Fatal(err)
	}
	p, err := snapshot.DecodePage(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.AX) != 0 {
		t.Errorf("the walk of a page without custom elements asks about %v", p.AX)
	}
	if n, err := capture.InternalsTracked(ctxT(t), tab); err != nil || n != 0 {
		t.Errorf("%d elements tracked (%v), want none", n, err)
	}
}

// A state the page changes through internals alone (no mutation any
// observer sees) shows in the next, incremental snapshot, on the same
// ref, as a fresh walk shows it; so do a new name and a custom element
// added later. Unchanged, the snapshot is served as it was.
func TestInternalsChangesShowIncrementally(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "internals.html")
	s1 := snap(t, tab)
	if s2 := snap(t, tab); s2.Text != s1.Text {
		t.Fatalf("unchanged page, changed snapshot:\n%s\n---\n%s", s1.Text, s2.Text)
	}
	sw, cls := ref(t, s1, "switch", "Dark mode"), ref(t, s1, "button", "Close dialog")
	steps := []struct {
		script string
		want   []string
	}{
		{`document.getElementById('dark').internals.ariaChecked = 'true'`, []string{`- switch "Dark mode" [checked] [ref=` + sw + `]`}},
		{`document.getElementById('close').internals.ariaLabel = 'Dismiss'`, []string{`- button "Dismiss" [ref=` + cls + `]`}},
		{`document.getElementById('more').internals.ariaExpanded = 'true'`, []string{`- button "More options" [expanded] [ref=`}},
		{`document.querySelector('x-option').internals.ariaSelected = 'true'; document.querySelectorAll('x-option')[1].internals.ariaSelected = 'false'`,
			[]string{`  - option "Apple" [selected] [ref=`, `  - option "Banana" [ref=`}},
		{`const s = document.createElement('x-switch'); s.setAttribute('label', 'Late'); document.body.append(s)`, []string{`- switch "Late" [ref=`}},
		{`document.getElementById('news').internals.role = 'switch'`, []string{`- switch "Send me the newsletter" [ref=`}},
	}
	for _, st := range steps {
		enginetest.EvalString(t, tab, "(() => { "+st.script+"; return '' })()")
		s := snap(t, tab)
		for _, want := range st.want {
			if !strings.Contains(s.Text, "\n"+want) {
				t.Fatalf("after %s the snapshot lacks %q:\n%s", st.script, want, s.Text)
			}
		}
		if fresh := snapWith(t, tab, capture.SnapshotOptions{NoCache: true}); fresh.Text != s.Text {
			t.Fatalf("after %s the incremental snapshot differs from a fresh walk:\n%s\n---\n%s", st.script, s.Text, fresh.Text)
		}
	}
}

// Custom elements in a same-site frame and in a cross-site one (another
// renderer, asked in its own session) are read alike, and a click by ref
// in the out-of-process frame shows in the next snapshot there only.
func TestInternalsInFrames(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/internals.html"))
	s := snap(t, tab)
	byFrame := refsByFrame(s, "switch", "Dark mode")
	if len(byFrame) != 2 {
		t.Fatalf("want the switch in both frames, got %v:\n%s", byFrame, s.Text)
	}
	if n := strings.Count(s.Text, `radio "Medium" [checked]`); n != 2 {
		t.Fatalf("want the checked radio twice, got %d:\n%s", n, s.Text)
	}
	oopif := enginetest.OOPIF(t, tab)
	r := byFrame[oopif.ID]
	if r == "" {
		t.Fatalf("no switch in the out-of-process frame %s: %v", oopif.ID, byFrame)
	}
	if _, err := action.Click(ctxT(t), tab, r, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	after := snap(t, tab)
	if !regexp.MustCompile(`switch "Dark mode" \[checked\] \[ref=` + r + `\]`).MatchString(after.Text) {
		t.Fatalf("the click on %s does not show:\n%s", r, after.Text)
	}
	if n := strings.Count(after.Text, `switch "Dark mode" [checked]`); n != 1 {
		t.Fatalf("want one checked switch, got %d:\n%s", n, after.Text)
	}
}
