package capture_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"

	"github.com/loupe-dev/loupe/internal/testenv"
)

// Invisible twins: a control a person never sees (a zero-size or
// transparent copy of an option list, an editor's hidden input, a native
// toggle clipped to a pixel) prints as the visible element that stands
// for it — its role, name and states on the visible element's line and
// ref — and the copy has no line of its own (twins-*.html).

// firstRef is the ref on the first line that starts (after the indent)
// with role and quoted name: what an agent that picks the first match
// takes.
func firstRef(t *testing.T, s *capture.Snapshot, role, name string) string {
	t.Helper()
	prefix := role + ` "` + name + `"`
	for _, l := range strings.Split(s.Text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " -"), prefix) {
			if r := refOfLine(l); r != "" {
				return r
			}
			t.Fatalf("the first %s line has no ref: %q\n%s", prefix, l, s.Text)
		}
	}
	t.Fatalf("no %s line:\n%s", prefix, s.Text)
	return ""
}

// attrOf reads an attribute of the element a ref names.
func attrOf(t *testing.T, tab *engine.Surface, ref, name string) string {
	t.Helper()
	v, _, err := action.Read(ctxT(t), tab, ref, "attr", name)
	if err != nil {
		t.Fatalf("read %s of %s: %v", name, ref, err)
	}
	return v
}

// count is how many lines of the snapshot hold s.
func count(s *capture.Snapshot, sub string) int {
	return strings.Count(s.Text, sub)
}

func TestTwinsOptionListShowsVisibleItems(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-list.html")
	s := snap(t, tab)
	for _, c := range []struct{ name, list string }{
		{"Apple", "fruit-items"}, {"Banana", "fruit-items"}, {"Cherry", "fruit-items"},
		{"Red", "color-items"}, {"Green", "color-items"}, {"Blue", "color-items"},
	} {
		r := firstRef(t, s, "option", c.name)
		if got := attrOf(t, tab, r, "class"); got != "item" {
			t.Errorf("option %q (%s) is a %q element, want the visible item", c.name, r, got)
		}
		if n := count(s, `option "`+c.name+`"`); n != 1 {
			t.Errorf("option %q printed %d times, want once (the copy left out)", c.name, n)
		}
	}
	// The lists print where their visible items are, under the copy's
	// role and name; the items are not printed again as plain text.
	for _, c := range []struct{ line, id string }{{`listbox [ref=`, "fruit-items"}, {`listbox "Colour" [ref=`, "color-items"}} {
		m := regexp.MustCompile(`(?m)^- ` + regexp.QuoteMeta(c.line) + `(e\d+)\]`).FindStringSubmatch(s.Text)
		if m == nil {
			t.Fatalf("no %q line:\n%s", c.line, s.Text)
		}
		if got := attrOf(t, tab, m[1], "id"); got != c.id {
			t.Errorf("%s is #%s, want #%s", c.line, got, c.id)
		}
	}
	// A closed list kept in the page has no counterpart: the value its
	// combobox shows is part of that combobox, not the chosen option.
	// The list prints, to read, without refs (see
	// TestTwinsClosedListsTakeNoRefs).
	if !regexp.MustCompile(`- listbox "Cities":\n +- option "Berlin" \[selected\]\n +- option "Oslo"\n`).MatchString(s.Text) {
		t.Errorf("the closed list's options are not printed as its own:\n%s", s.Text)
	}
	if !regexp.MustCompile(`- combobox "City" \[ref=e\d+\]: Berlin`).MatchString(s.Text) {
		t.Errorf("the combobox no longer shows its value:\n%s", s.Text)
	}
	if strings.Contains(s.Text, "[clickable]") {
		t.Errorf("a visible item still prints as a plain clickable element:\n%s", s.Text)
	}
	// A role locator finds the visible item too.
	r := firstRef(t, s, "option", "Banana")
	el, err := capture.Resolve(ctxT(t), tab, `role=option[name="Banana"]`)
	if err != nil || el.Ref != r {
		t.Errorf("role=option[name=Banana]: %+v, %v; want %s", el, err, r)
	}
}

// TestTwinsClosedListsTakeNoRefs: a list kept in the page while closed —
// squashed to no height, or transparent and scaled to nothing — prints
// its items to read, without refs: no verb reaches them, and the first
// option "Oslo" with a ref is the one a person sees, in the open list of
// another combobox with the same cities.
func TestTwinsClosedListsTakeNoRefs(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-list.html")
	s := snap(t, tab)
	lines := strings.Split(s.Text, "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	for _, list := range []string{"Cities", "Offices"} {
		// The list's line and the lines under it.
		var block []string
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimLeft(l, " "), `- listbox "`+list+`"`) {
				block = []string{l}
				for _, k := range lines[i+1:] {
					if indent(k) <= indent(l) {
						break
					}
					block = append(block, k)
				}
				break
			}
		}
		text := strings.Join(block, "\n")
		if len(block) == 0 || strings.Contains(text, "[ref=") || !strings.Contains(text, `option "Oslo"`) {
			t.Errorf("the closed list %q is missing, prints with refs, or without its items:\n%s", list, s.Text)
		}
	}
	if !regexp.MustCompile(`- listbox "Backup offices" \[ref=e\d+\]:\n +- option "Berlin" \[selected\] \[ref=e\d+\]\n +- option "Oslo" \[ref=e\d+\]`).MatchString(s.Text) {
		t.Errorf("the open list lost its refs:\n%s", s.Text)
	}
	// The first option "Oslo" with a ref, what an agent takes, is one a
	// person sees.
	oslo := ""
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " -"), `option "Oslo"`) {
			if oslo = refOfLine(l); oslo != "" {
				break
			}
		}
	}
	if st, err := action.State(ctxT(t), tab, oslo); err != nil || !st.Visible {
		t.Errorf("the first option Oslo with a ref (%s) is not visible: %+v, %v\n%s", oslo, st, err, s.Text)
	}
}

// A choice made in the visible list reaches the copy (aria-selected),
// and the next snapshot — incremental — shows it on the visible item, as
// a fresh walk does; when the copy goes, the items print as they are.
func TestTwinsIncremental(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-list.html")
	s := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, firstRef(t, s, "option", "Banana"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	same := func(step string) *capture.Snapshot {
		t.Helper()
		inc := snap(t, tab)
		fresh := snapWith(t, tab, capture.SnapshotOptions{NoCache: true})
		if inc.Text != fresh.Text {
			t.Fatalf("%s: the incremental snapshot differs from a fresh walk:\n%s\n--- fresh:\n%s", step, inc.Text, fresh.Text)
		}
		return inc
	}
	s = same("after the click")
	if !strings.Contains(s.Text, `option "Banana" [selected] [ref=`) {
		t.Fatalf("the chosen option is not marked selected:\n%s", s.Text)
	}
	enginetest.EvalString(t, tab, `(document.getElementById('fruit-list').remove(), '')`)
	s = same("after the copy went")
	if strings.Contains(s.Text, `option "Apple"`) || !strings.Contains(s.Text, "[clickable]") {
		t.Fatalf("with the copy gone, the items still print as its options:\n%s", s.Text)
	}
	// The copy comes back (a list opened again): its items are options
	// again, with the refs they had.
	enginetest.EvalString(t, tab, `(document.getElementById('fruit-drop').innerHTML = document.getElementById('fruit-drop').innerHTML.replace('<div class="list"', '<div role="listbox" id="fruit-list" class="a11y"><div role="option">Apple</div><div role="option">Banana</div><div role="option">Cherry</div></div><div class="list"'), '')`)
	s = same("after the copy came back")
	if !strings.Contains(s.Text, `option "Apple" [ref=`) {
		t.Fatalf("the copy came back, the items are not its options:\n%s", s.Text)
	}
}

func TestTwinsEditorHostCarriesTheField(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-editor.html")
	s := snap(t, tab)
	for _, c := range []struct{ name, id string }{{"Script", "code"}, {"Notes", "notes"}} {
		r := firstRef(t, s, "textbox", c.name)
		if got := attrOf(t, tab, r, "id"); got != c.id {
			t.Errorf("textbox %q is #%s, want the editor #%s", c.name, got, c.id)
		}
		if n := count(s, `textbox "`+c.name+`"`); n != 1 {
			t.Errorf("textbox %q printed %d times:\n%s", c.name, n, s.Text)
		}
	}
	// The editor's drawn text is its content, still printed.
	if !regexp.MustCompile(`- textbox "Script" \[ref=e\d+\]:\n(?:\s+- .*\n)*\s+- generic \[ref=e\d+\]: print\(x\);`).MatchString(s.Text) {
		t.Errorf("the code lines are not the editor's children:\n%s", s.Text)
	}
}

func TestTwinsDrawnToggles(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-toggle.html")
	s := snap(t, tab)
	for _, c := range []struct{ role, name, tag string }{
		{"checkbox", "Remember me", "label"}, {"radio", "Free", "label"}, {"radio", "Pro", "label"}, {"switch", "Dark mode", "span"},
	} {
		r := firstRef(t, s, c.role, c.name)
		st, err := action.State(ctxT(t), tab, r)
		if err != nil {
			t.Fatal(err)
		}
		// Its role and state are the control's; its place the drawn one's.
		if st.Role != c.role || !st.Visible {
			t.Errorf("%s %q (%s): %+v", c.role, c.name, r, st)
		}
		if got := attrOf(t, tab, r, "class"); got == "vh" || got == "" && c.tag == "label" {
			t.Errorf("%s %q is the hidden control (class %q)", c.role, c.name, got)
		}
	}
	if !strings.Contains(s.Text, `radio "Free" [checked] [ref=`) {
		t.Errorf("the checked radio's state is lost:\n%s", s.Text)
	}
	// A label that holds a link too stands for nothing: the link would
	// be lost. The checkbox keeps its line (and is clicked through the
	// label, see the action tests).
	if r := firstRef(t, s, "checkbox", "I accept the terms"); attrOf(t, tab, r, "id") != "terms" {
		t.Errorf("the checkbox whose label holds a link is not the checkbox itself:\n%s", s.Text)
	}
	// What has no visible counterpart keeps its line and ref.
	for _, want := range []string{`link "terms" [url=#terms-text] [ref=`, `link "Skip to content" [url=#main] [ref=`, `textbox "Honeypot" [ref=`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("missing %q:\n%s", want, s.Text)
		}
	}
}

// twinMutations are what a list with a hidden copy does between two
// snapshots (twins-list.html): the copy comes and goes or becomes
// visible, items are renamed, chosen, hidden, added and removed on one
// side or both, the visible list is rebuilt, the transparent copy shows.
var twinMutations = []string{
	`(n) => { const c = document.getElementById('fruit-list'); if (c) { window.__copy = c; c.remove(); } else if (window.__copy) document.getElementById('fruit-drop').prepend(window.__copy); }`,
	`(n) => { const c = document.getElementById('fruit-list'); if (c) c.classList.toggle('a11y'); }`,
	`(n) => { const items = document.querySelectorAll('#fruit-items .content, #fruit-list [role=option]'); if (items.length) items[n % items.length].textContent = ['Apple', 'Banana', 'Cherry', 'Damson'][n % 4]; }`,
	`(n) => { const o = document.querySelectorAll('#fruit-list [role=option], #color-list [role=option]'); if (o.length) o[n % o.length].setAttribute('aria-selected', String(n % 2 === 0)); }`,
	`(n) => { const i = document.querySelectorAll('.item'); if (i.length) i[n % i.length].style.display = i[n % i.length].style.display ? '' : 'none'; }`,
	`(n) => { const g = document.getElementById('color-list'); g.style.opacity = g.style.opacity === '1' ? '' : '1'; }`,
	`(n) => { const name = 'Fig ' + n; document.getElementById('fruit-items').insertAdjacentHTML('beforeend', '<div class="item"><div class="content">' + name + '</div></div>'); const c = document.getElementById('fruit-list'); if (c && n % 2) c.insertAdjacentHTML('beforeend', '<div role="option">' + name + '</div>'); }`,
	`(n) => { const i = document.querySelectorAll('#fruit-items .item'); if (i.length > 1) i[n % i.length].remove(); }`,
	`(n) => { const l = document.getElementById('fruit-items'); l.innerHTML = l.innerHTML; }`,
	`(n) => { const d = document.getElementById('color-drop'); d.hidden = !d.hidden; }`,
	`(n) => { if (n % 2) document.querySelector('[role=combobox]').focus(); else document.activeElement.blur(); }`,
	`(n) => {}`,
}

// TestTwinsCachedEqualsFresh: after every change of a seeded random
// sequence, the snapshot made from the page agent's kept walk equals a
// fresh walk — text and refs — wherever the pairs of copies and their
// stand-ins come, go or change.
func TestTwinsCachedEqualsFresh(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "twins-list.html")
	steps := 40
	if !testenv.Long() {
		steps = 20
	}
	rng := rand.New(rand.NewPCG(26, 1))
	for step := range steps {
		ctx := ctxT(t)
		i, n := rng.IntN(len(twinMutations)), rng.IntN(1000)
		expr := fmt.Sprintf("(%s)(%d), new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", twinMutations[i], n)
		if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true}, nil); err != nil {
			t.Fatal(err)
		}
		cached, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := capture.Take(ctx, tab, capture.SnapshotOptions{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		if cached.Text != fresh.Text || !reflect.DeepEqual(cached.Refs, fresh.Refs) {
			t.Fatalf("step %d (mutation %d, n %d): the snapshot differs from a fresh walk\ncached:\n%s\nfresh:\n%s", step, i, n, cached.Text, fresh.Text)
		}
	}
}
