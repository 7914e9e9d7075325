package action_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/keys"
)

// The widget classes real apps are made of (widgets.html), each acted on
// by a ref from the snapshot and checked in the page: text slotted into a
// shadow <button>, controls with no interactive role (a tabindex=-1 column
// header, calendar days and a "Next" link without href under delegated
// listeners, list items), an editor's paragraphs, names through
// presentational wrappers and <wbr>, a code editor's aria-hidden lines,
// and a widget's own parts on top of its input.

// lineRef returns the ref on the only snapshot line matching pattern.
func lineRef(t *testing.T, s *capture.Snapshot, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	var found []string
	for _, l := range strings.Split(s.Text, "\n") {
		if re.MatchString(l) {
			if r := refOfLine(l); r != "" {
				found = append(found, r)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one line with a ref matching %q, found %v:\n%s", pattern, found, s.Text)
	}
	return found[0]
}

func outText(t *testing.T, tab *engine.Surface) string {
	t.Helper()
	return evalString(t, tab, `document.getElementById('out').textContent`)
}

func clickOut(t *testing.T, tab *engine.Surface, ref string) (*action.Result, string) {
	t.Helper()
	r, err := action.Click(ctxT(t), tab, ref, action.ClickOptions{})
	if err != nil {
		t.Fatalf("click %s: %v", ref, err)
	}
	return r, outText(t, tab)
}

func TestWidgetsShadowSlot(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	for _, c := range []struct{ name, want string }{{"Save", "saved"}, {"Send", "sent"}} {
		r, out := clickOut(t, tab, ref(t, s, "button", c.name))
		if out != c.want || r.Note != "" {
			t.Errorf("click %s (slotted into a shadow button): out %q note %q, want %q and no note", c.name, out, r.Note, c.want)
		}
	}
}

func TestWidgetsControlsWithoutRoles(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	for _, c := range []struct{ line, want string }{
		{`- columnheader "Name" \[ref=`, "sorted Name"},
		{`- generic "February 15, 2030" \[focusable\] \[ref=e\d+\]: 15`, "day 15"},
		{`- generic \[clickable\] \[ref=e\d+\]: Next$`, "next page"},
		{`- listitem \[ref=e\d+\]: Beta$`, "picked Beta"},
	} {
		if _, out := clickOut(t, tab, lineRef(t, s, c.line)); out != c.want {
			t.Errorf("click %s: out %q, want %q", c.line, out, c.want)
		}
	}
	// The interactive view keeps the controls, marked, and drops text.
	i := snapWith(t, tab, capture.SnapshotOptions{Interactive: true})
	for _, want := range []string{`columnheader "Name" [ref=`, `"February 14, 2030" [focusable] [ref=`, "[clickable]"} {
		if !strings.Contains(i.Text, want) {
			t.Errorf("interactive view lacks %q:\n%s", want, i.Text)
		}
	}
	if strings.Contains(i.Text, "Beta") || strings.Contains(i.Text, "Second paragraph") {
		t.Errorf("interactive view shows text that is no control:\n%s", i.Text)
	}
}

// TestWidgetsEditor: a rich-text editor prints its blocks as children, and
// clicking one places the caret in it.
func TestWidgetsEditor(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	if !strings.Contains(s.Text, "- textbox \"Notes\" [ref=") || !strings.Contains(s.Text, "  - heading \"Title\" [level=2] [ref=") {
		t.Fatalf("the editor's blocks are not its children:\n%s", s.Text)
	}
	if _, err := action.Click(ctxT(t), tab, lineRef(t, s, `- paragraph \[ref=e\d+\]: Second paragraph`), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := action.Type(ctxT(t), tab, "", " more"); err != nil {
		t.Fatal(err)
	}
	paras := func() string {
		return evalString(t, tab, `Array.from(document.querySelectorAll('#ed p')).map(p => p.textContent).join('|')`)
	}
	if got := paras(); got != "First paragraph|Second paragraph more" {
		t.Fatalf("typing after a click on the second paragraph: %q", got)
	}
	// A block's ref is a target for typing and filling too: the editor
	// takes focus with the caret (or the selection) in that block.
	if _, err := action.Type(ctxT(t), tab, lineRef(t, s, `- paragraph \[ref=e\d+\]: First paragraph`), "!"); err != nil {
		t.Fatal(err)
	}
	if _, err := action.Fill(ctxT(t), tab, lineRef(t, s, `- paragraph \[ref=e\d+\]: Second paragraph`), "Replaced"); err != nil {
		t.Fatal(err)
	}
	if got := paras(); got != "First paragraph!|Replaced" {
		t.Fatalf("type and fill into the editor's paragraphs: %q", got)
	}
}

func TestWidgetsNames(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	for _, want := range []string{`columnheader "Name" [ref=`, `columnheader "Age" [ref=`, `heading "GET /pets/{petId}" [level=3]`, ": GET/pets/{petId}\n"} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("missing %q:\n%s", want, s.Text)
		}
	}
	if strings.ContainsAny(s.Text, "\u200b\u200c\u200d\ufeff") {
		t.Errorf("zero-width characters in the text:\n%q", s.Text)
	}
}

// TestWidgetsAriaHidden: a code editor's visible aria-hidden lines are
// printed, marked, each with a ref that places the caret; nothing that is
// not rendered (display:none, off the page, a decorative dot) is.
func TestWidgetsAriaHidden(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	if !regexp.MustCompile(`- generic \[aria-hidden\]:\n(\s+- generic \[ref=e\d+\]: .*\n){3}`).MatchString(s.Text) {
		t.Fatalf("the code lines are not printed, marked, with refs:\n%s", s.Text)
	}
	for _, gone := range []string{"NOT-RENDERED-CODE", "OFFSCREEN-CODE", "·"} {
		if strings.Contains(s.Text, gone) {
			t.Errorf("%q is not seen on the page but printed:\n%s", gone, s.Text)
		}
	}
	if _, out := clickOut(t, tab, lineRef(t, s, `: return 42;$`)); out != "caret line 2" {
		t.Fatalf("click on the code line: %q", out)
	}
	if st, err := action.State(ctxT(t), tab, ref(t, s, "textbox", "Function body")); err != nil || !st.Focused {
		t.Fatalf("the editor's input has no focus after the click: %+v %v", st, err)
	}
}

// TestWidgetsOwnParts: a part of the target's own widget on top of it (a
// placeholder, a drawn switch track) does not stop a click, and the result
// says where the input went; an unrelated overlay still does.
func TestWidgetsOwnParts(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	r, out := clickOut(t, tab, ref(t, s, "combobox", "Plan"))
	if out != "plan focused" || !strings.Contains(r.Note, `div.ph "Free"`) {
		t.Errorf("combobox under its placeholder: out %q note %q", out, r.Note)
	}
	// The label that draws a hidden native switch shows it (its ref is
	// the label's); the switch itself, named by a locator, is clicked
	// there too.
	r, out = clickOut(t, tab, ref(t, s, "switch", "Wi-Fi"))
	if out != "wifi true" || r.Note != "" {
		t.Errorf("hidden native switch with a label: out %q note %q", out, r.Note)
	}
	r, out = clickOut(t, tab, "#sw")
	if out != "wifi false" || !strings.Contains(r.Note, "label#sw-label") {
		t.Errorf("hidden native switch by its locator: out %q note %q", out, r.Note)
	}
	if _, err := action.SetChecked(ctxT(t), tab, ref(t, s, "switch", "Bluetooth"), true); err != nil {
		t.Fatalf("check a hidden native switch drawn by its track: %v", err)
	}
	if out := outText(t, tab); out != "bluetooth true" {
		t.Errorf("check Bluetooth: out %q", out)
	}
	before := outText(t, tab)
	_, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Buried"), action.ClickOptions{})
	e := wantCode(t, err, apitype.NotActionable)
	if !e.NotExecuted || !strings.Contains(e.Message, "div#overlay") || outText(t, tab) != before {
		t.Fatalf("an overlay that is no part of the button must stop the click: %v", e)
	}
}

// TestWidgetsTallElement: a wheel over an element taller than its scroller
// turns from where it shows; it is not scrolled back to its middle first
// (each turn adds to the last), and a click lands on its visible part.
func TestWidgetsTallElement(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	tall := ref(t, s, "log", "Long log")
	var tops []string
	for range 3 {
		if _, err := action.Scroll(ctxT(t), tab, tall, action.ScrollOptions{DY: 200}); err != nil {
			t.Fatal(err)
		}
		tops = append(tops, evalString(t, tab, `String(document.getElementById('scroller').scrollTop)`))
	}
	if tops[0] == "0" || tops[1] == tops[0] || tops[2] == tops[1] {
		t.Fatalf("scrollTop after three wheel turns over the tall element: %v", tops)
	}
	if _, err := action.Click(ctxT(t), tab, tall, action.ClickOptions{}); err != nil {
		t.Fatalf("click on the tall element's visible part: %v", err)
	}
}

// TestWidgetsUploadButton: an upload button whose file input is hidden
// inside it takes the files through that input.
func TestWidgetsUploadButton(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	f := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(f, []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := action.Upload(ctxT(t), tab, ref(t, s, "button", "Attach a file"), []string{f})
	if err != nil {
		t.Fatal(err)
	}
	if out := outText(t, tab); out != "attached notes.txt" || !strings.Contains(r.Note, "through its file input input#file") {
		t.Fatalf("upload through the button: out %q note %q", out, r.Note)
	}
}

// TestWidgetsPressGuard: when the page moves something over the target
// between loupe's check and the press (a promo shown as the pointer
// enters), the press is stopped and reported, and nothing is clicked.
func TestWidgetsPressGuard(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	_, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Hover trap"), action.ClickOptions{})
	e := wantCode(t, err, apitype.NotActionable)
	if e.NotExecuted || !strings.Contains(e.Message, "div#trap") {
		t.Fatalf("want a stopped press on the promo, reported as possibly executed: %+v", e)
	}
	if out := outText(t, tab); out != "none" {
		t.Fatalf("the stopped press clicked something: %q", out)
	}
	// The next click, with the promo now on top, is refused before input.
	s = snap(t, tab)
	_, err = action.Click(ctxT(t), tab, ref(t, s, "button", "Hover trap"), action.ClickOptions{})
	if e := wantCode(t, err, apitype.NotActionable); !e.NotExecuted {
		t.Fatalf("a covered button must be refused before any input: %+v", e)
	}
}

// TestWidgetsClickSettles: a click returns once what it set off is drawn
// (a menu a framework renders on the next frame), so the snapshot right
// after it, as a front end's report of what changed, shows it.
// Not parallel: the wait is bounded by 8 frames or 500 ms (quietFor), and
// tests beside it would slow the frames it waits for.
func TestWidgetsClickSettles(t *testing.T) {
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Open later"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := snap(t, tab); !strings.Contains(after.Text, "Later item two") {
		t.Fatalf("the menu the click opened is not in the snapshot right after it:\n%s", after.Text)
	}
	// Keys too: ArrowDown in a field draws suggestions on the next frame.
	if _, err := action.Focus(ctxT(t), tab, ref(t, s, "textbox", "Filter later")); err != nil {
		t.Fatal(err)
	}
	down, err := keys.ParseChord("ArrowDown")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := action.Press(ctxT(t), tab, []keys.Chord{down}); err != nil {
		t.Fatal(err)
	}
	if after := snap(t, tab); !strings.Contains(after.Text, "Suggested later") {
		t.Fatalf("the suggestions the key opened are not in the snapshot right after it:\n%s", after.Text)
	}
}

// TestWidgetsWaitsForCover: an overlay on its way out (gone a few frames
// after it is dismissed) delays the click instead of refusing it.
func TestWidgetsWaitsForCover(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "widgets.html")
	s := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Dismiss veil"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, out := clickOut(t, tab, ref(t, s, "button", "Under the veil")); out != "under clicked" {
		t.Fatalf("click under a veil going away: %q", out)
	}
}
