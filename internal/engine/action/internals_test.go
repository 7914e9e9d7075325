package action_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/action"
)

// Custom elements whose role, name and states live on their
// ElementInternals are operated by ref like native controls: a click lands
// on each (the page says what it did), and what it changed through the
// internals shows in the next snapshot, on the same refs.
func TestClickInternalsControlsByRef(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "internals.html")
	s := snap(t, tab)
	for _, c := range []struct {
		role, name, status string
		after              []string // lines the next snapshot holds (up to the ref)
	}{
		{"radio", "Small", "radio Small", []string{`  - radio "Small" [checked] [ref=`, `  - radio "Medium" [ref=`}},
		{"switch", "Dark mode", "switch true", []string{`- switch "Dark mode" [checked] [ref=`}},
		{"option", "Cherry", "option Cherry", []string{`  - option "Cherry" [selected] [ref=`, `  - option "Banana" [ref=`}},
		{"button", "Close dialog", "button Close dialog", nil},
		{"button", "More options", "disclosure true", []string{`- button "More options" [expanded] [ref=`}},
		{"button", "Bold", "button Bold", nil},
	} {
		r := ref(t, s, c.role, c.name)
		if _, err := action.Click(ctxT(t), tab, r, action.ClickOptions{}); err != nil {
			t.Fatalf("click %s %q: %v", c.role, c.name, err)
		}
		if got := status(t, tab); got != c.status {
			t.Fatalf("click %s %q: the page says %q, want %q", c.role, c.name, got, c.status)
		}
		next := snap(t, tab)
		for _, want := range c.after {
			if !strings.Contains(next.Text, "\n"+want) {
				t.Fatalf("after clicking %s %q the snapshot lacks %q:\n%s", c.role, c.name, want, next.Text)
			}
		}
		if ref(t, next, c.role, c.name) != r {
			t.Fatalf("%s %q changed its ref", c.role, c.name)
		}
	}
	// A radio disabled through its internals is not clicked.
	_, err := action.Click(ctxT(t), tab, ref(t, s, "radio", "Large"), action.ClickOptions{})
	wantCode(t, err, apitype.NotActionable)
	if got := status(t, tab); got != "button Bold" {
		t.Fatalf("the disabled radio was clicked: %q", got)
	}
}

// check and uncheck read a checkbox's state from its internals as it is
// now (no snapshot between the click and the check that it took): done
// once, then "already", then undone; a radio checks, and cannot be
// unchecked.
func TestCheckInternalsCheckbox(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "internals.html")
	s := snap(t, tab)
	news := ref(t, s, "checkbox", "Send me the newsletter")
	if _, err := action.SetChecked(ctxT(t), tab, news, true); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "check true" {
		t.Fatalf("status %q", got)
	}
	r, err := action.SetChecked(ctxT(t), tab, news, true)
	if err != nil || r.Executed {
		t.Fatalf("checking a checked box: %+v %v", r, err)
	}
	if next := snap(t, tab); !strings.Contains(next.Text, `- checkbox "Send me the newsletter" [checked] [ref=`+news+`]`) {
		t.Fatalf("the check does not show:\n%s", next.Text)
	}
	if _, err := action.SetChecked(ctxT(t), tab, news, false); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "check false" {
		t.Fatalf("status %q", got)
	}
	if next := snap(t, tab); !strings.Contains(next.Text, `- checkbox "Send me the newsletter" [ref=`+news+`]`) {
		t.Fatalf("the uncheck does not show:\n%s", next.Text)
	}
	dark := ref(t, s, "switch", "Dark mode")
	if _, err := action.SetChecked(ctxT(t), tab, dark, true); err != nil {
		t.Fatal(err)
	}
	small := ref(t, s, "radio", "Small")
	if _, err := action.SetChecked(ctxT(t), tab, small, true); err != nil {
		t.Fatal(err)
	}
	_, err = action.SetChecked(ctxT(t), tab, small, false)
	wantCode(t, err, apitype.NotActionable)
	next := snap(t, tab)
	for _, want := range []string{`- switch "Dark mode" [checked] [ref=` + dark + `]`, `  - radio "Small" [checked] [ref=` + small + `]`} {
		if !strings.Contains(next.Text, want) {
			t.Fatalf("snapshot lacks %q:\n%s", want, next.Text)
		}
	}
}
