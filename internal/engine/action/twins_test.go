package action_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

// Acting on invisible twins (twins-*.html): the first line with the role
// and name an agent looks for is the visible element, and every verb on
// it works; a ref (or a locator) that names the invisible control itself
// acts where a person would (a click on an editor's hidden input focuses
// the editor, typing goes to it); and no verb succeeds on an element
// another refuses as not visible.

// firstRef is the ref on the first line that starts with role and quoted
// name: what an agent that picks the first match takes.
func firstRef(t *testing.T, s *capture.Snapshot, role, name string) string {
	t.Helper()
	prefix := role + ` "` + name + `"`
	for _, l := range strings.Split(s.Text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " -"), prefix) {
			if r := refOfLine(l); r != "" {
				return r
			}
			break
		}
	}
	t.Fatalf("no %s line with a ref first:\n%s", prefix, s.Text)
	return ""
}

func byID(t *testing.T, tab *engine.Surface, id string) string {
	t.Helper()
	return evalString(t, tab, `document.getElementById('`+id+`').textContent`)
}

func TestTwinsPickFromList(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-list.html")
	for _, c := range []struct{ name, out, want string }{
		{"Banana", "fruit-out", "banana"}, {"Cherry", "fruit-out", "cherry"}, {"Green", "color-out", "green"},
	} {
		r, err := action.Click(ctxT(t), tab, firstRef(t, snap(t, tab), "option", c.name), action.ClickOptions{})
		if err != nil {
			t.Fatalf("click option %q: %v", c.name, err)
		}
		if got := byID(t, tab, c.out); got != c.want || r.Note != "" {
			t.Errorf("click option %q: %s is %q (note %q), want %q", c.name, c.out, got, r.Note, c.want)
		}
	}
	// The copy itself, named by a locator that reaches it (CSS): a
	// click goes to the item that shows it.
	r, err := action.Click(ctxT(t), tab, `#fruit-0`, action.ClickOptions{})
	if err != nil {
		t.Fatalf("click the copy of Apple: %v", err)
	}
	if got := byID(t, tab, "fruit-out"); got != "apple" || !strings.Contains(r.Note, `div.item "Apple"`) {
		t.Errorf("click the copy of Apple: fruit %q, note %q", got, r.Note)
	}
}

func TestTwinsEditorInput(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-editor.html")
	s := snap(t, tab)
	script := firstRef(t, s, "textbox", "Script")
	value := func() string { return evalString(t, tab, `document.getElementById('code-input').value`) }
	if _, err := action.Click(ctxT(t), tab, script, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := byID(t, tab, "code-status"); got != "focused" {
		t.Fatalf("a click on the editor: status %q", got)
	}
	if r, err := action.Fill(ctxT(t), tab, script, "a = 2"); err != nil || r.Value != "a = 2" {
		t.Fatalf("fill the editor: %+v, %v", r, err)
	}
	if _, err := action.Type(ctxT(t), tab, script, ";"); err != nil {
		t.Fatal(err)
	}
	if got := value(); got != "a = 2;" {
		t.Fatalf("fill then type into the editor: %q", got)
	}
	if !strings.Contains(snap(t, tab).Text, ": a = 2;") {
		t.Errorf("the editor does not show what was typed:\n%s", snap(t, tab).Text)
	}
	// The hidden input named by a locator: a click focuses it (the
	// editor at its caret), typing goes to it.
	evalString(t, tab, `(document.activeElement.blur(), '')`)
	r, err := action.Click(ctxT(t), tab, `#code-input`, action.ClickOptions{})
	if err != nil {
		t.Fatalf("click the hidden input: %v", err)
	}
	if got := byID(t, tab, "code-status"); got != "focused" || !strings.Contains(r.Note, "focused") {
		t.Fatalf("a click on the hidden input: status %q, note %q", got, r.Note)
	}
	if _, err := action.Type(ctxT(t), tab, `#code-input`, "!"); err != nil {
		t.Fatal(err)
	}
	if got := value(); got != "a = 2;!" {
		t.Fatalf("type into the hidden input: %q", got)
	}
	// An EditContext editor: its focusable element has no size at all.
	notes := firstRef(t, s, "textbox", "Notes")
	if _, err := action.Type(ctxT(t), tab, notes, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, `notesText()`); got != "hello" {
		t.Fatalf("type into the EditContext editor: %q", got)
	}
	if st, err := action.State(ctxT(t), tab, notes); err != nil || !st.Focused || st.Role != "textbox" {
		t.Fatalf("the EditContext editor after typing: %+v, %v", st, err)
	}
}

func TestTwinsDrawnToggles(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-toggle.html")
	s := snap(t, tab)
	out := func() string { return byID(t, tab, "out") }
	if _, err := action.Click(ctxT(t), tab, firstRef(t, s, "checkbox", "Remember me"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := out(); got != "remember true" {
		t.Fatalf("click the checkbox: %q", got)
	}
	if _, err := action.SetChecked(ctxT(t), tab, firstRef(t, s, "radio", "Pro"), true); err != nil {
		t.Fatal(err)
	}
	if got := out(); got != "plan pro" {
		t.Fatalf("check the radio: %q", got)
	}
	dark := firstRef(t, s, "switch", "Dark mode")
	if _, err := action.SetChecked(ctxT(t), tab, dark, true); err != nil {
		t.Fatal(err)
	}
	if st, err := action.State(ctxT(t), tab, dark); err != nil || st.Checked != true || out() != "dark true" {
		t.Fatalf("check the switch: %+v, %v, out %q", st, err, out())
	}
	// Already checked: nothing is sent.
	if r, err := action.SetChecked(ctxT(t), tab, firstRef(t, s, "checkbox", "Remember me"), true); err != nil || r.Executed {
		t.Fatalf("check a checked box: %+v, %v", r, err)
	}
	s = snap(t, tab)
	for _, want := range []string{`checkbox "Remember me" [checked] [ref=`, `radio "Pro" [checked] [ref=`, `switch "Dark mode" [checked] [ref=`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("missing %q:\n%s", want, s.Text)
		}
	}
}

// TestTwinsVerbsAgree: an element a person cannot see and that nothing
// visible stands for (a link moved off the page, an input clipped to one
// pixel) is refused as not visible by every verb alike, not clicked by
// one and typed into by another; the hidden native checkbox of a drawn
// one is reached by every verb.
func TestTwinsVerbsAgree(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-toggle.html")
	s := snap(t, tab)
	skip, honey := firstRef(t, s, "link", "Skip to content"), firstRef(t, s, "textbox", "Honeypot")
	verbs := []struct {
		name string
		do   func(ref string) error
	}{
		{"click", func(r string) error { _, err := action.Click(ctxT(t), tab, r, action.ClickOptions{}); return err }},
		{"hover", func(r string) error { _, err := action.Hover(ctxT(t), tab, r); return err }},
		{"focus", func(r string) error { _, err := action.Focus(ctxT(t), tab, r); return err }},
		{"fill", func(r string) error { _, err := action.Fill(ctxT(t), tab, r, "x"); return err }},
		{"type", func(r string) error { _, err := action.Type(ctxT(t), tab, r, "x"); return err }},
		{"check", func(r string) error { _, err := action.SetChecked(ctxT(t), tab, r, true); return err }},
		{"select", func(r string) error { _, err := action.Select(ctxT(t), tab, r, []string{"x"}); return err }},
	}
	for _, ref := range []string{skip, honey} {
		for _, v := range verbs {
			err := v.do(ref)
			e := wantCode(t, err, apitype.NotActionable)
			// (check and select first say what the element is not.)
			if v.name != "check" && v.name != "select" && !strings.Contains(e.Message, "not visible") {
				t.Errorf("%s %s: %v, want not visible", v.name, ref, e)
			}
		}
	}
	if got := evalString(t, tab, `document.getElementById('honey').value + '|' + (document.activeElement && document.activeElement.id)`); got != "|" {
		t.Errorf("a refused verb reached the hidden input: %q", got)
	}
	// The drawn checkbox's native input, named by a locator: every verb
	// reaches it.
	for _, v := range verbs[:4] {
		if v.name == "fill" {
			continue
		}
		if err := v.do(`#remember`); err != nil {
			t.Errorf("%s #remember: %v", v.name, err)
		}
	}
	if _, err := action.SetChecked(ctxT(t), tab, `#remember`, false); err != nil {
		t.Errorf("uncheck #remember: %v", err)
	}
	// A clipped checkbox whose label holds a link as well keeps its own
	// line; every verb reaches it through its label.
	terms := firstRef(t, s, "checkbox", "I accept the terms")
	for _, v := range verbs[:3] {
		if err := v.do(terms); err != nil {
			t.Errorf("%s the terms checkbox: %v", v.name, err)
		}
	}
	if got := evalString(t, tab, `String(document.getElementById('terms').checked)`); got != "true" {
		t.Errorf("the terms checkbox after a click: checked %s", got)
	}
}

// TestTwinsEditorWithPanel: an editor whose find panel is open inside it
// stands for its hidden textarea in no snapshot (it holds a field of its
// own too); the textarea's line is still acted on where a person would:
// a click focuses the editor at its caret, typing goes to it. A form's
// hidden field beside a visible one is refused by every verb.
func TestTwinsEditorWithPanel(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-editor.html")
	s := snap(t, tab)
	doc := firstRef(t, s, "textbox", "Document")
	r, err := action.Click(ctxT(t), tab, doc, action.ClickOptions{})
	if err != nil {
		t.Fatalf("click the editor's textarea: %v", err)
	}
	if got := byID(t, tab, "doc-status"); got != "focused" || !strings.Contains(r.Note, "div#doc") {
		t.Fatalf("click the editor's textarea: status %q, note %q", got, r.Note)
	}
	if _, err := action.Type(ctxT(t), tab, doc, "!"); err != nil {
		t.Fatalf("type into the editor's textarea: %v", err)
	}
	if got := evalString(t, tab, `document.getElementById('doc-input').value`); got != "hello!" {
		t.Fatalf("type into the editor's textarea: %q", got)
	}
	trap := firstRef(t, s, "textbox", "Leave empty")
	if _, err := action.Click(ctxT(t), tab, trap, action.ClickOptions{}); !strings.Contains(wantCode(t, err, apitype.NotActionable).Message, "not visible") {
		t.Errorf("click the hidden form field: %v", err)
	}
	if _, err := action.Type(ctxT(t), tab, trap, "x"); !strings.Contains(wantCode(t, err, apitype.NotActionable).Message, "not visible") {
		t.Errorf("type into the hidden form field: %v", err)
	}
	if got := evalString(t, tab, `document.getElementById('trap').value`); got != "" {
		t.Errorf("a refused verb reached the hidden form field: %q", got)
	}
}

// TestTwinsClosedListTakesNoClick: two comboboxes offer the same cities
// and the first one's list is closed (kept in the page, transparent,
// scaled to nothing): the first option "Oslo" an agent finds is the open
// list's (the lines of the closed ones have no refs), and a click picks
// it.
func TestTwinsClosedListTakesNoClick(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-list.html")
	s := snap(t, tab)
	oslo := ""
	for _, l := range strings.Split(s.Text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " -"), `option "Oslo"`) {
			if oslo = refOfLine(l); oslo != "" {
				break
			}
		}
	}
	if oslo == "" {
		t.Fatalf("no option Oslo with a ref:\n%s", s.Text)
	}
	if _, err := action.Click(ctxT(t), tab, oslo, action.ClickOptions{}); err != nil {
		t.Fatalf("click the first option Oslo: %v", err)
	}
	if got := byID(t, tab, "backup-out"); got != "oslo" {
		t.Errorf("click the first option Oslo: backup %q", got)
	}
}
