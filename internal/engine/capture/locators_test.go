package capture_test

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// locSnap captures the whole surface, binds refs and assigns locators, as
// a snapshot does once they are wired in. Frames still attaching make a
// capture incomplete (no locators); it waits for a complete one.
func locSnap(t *testing.T, tab *engine.Surface) *capture.Snapshot {
	t.Helper()
	ctx := longCtx(t) // captures until complete, then a locator for every ref
	deadline := time.Now().Add(30 * time.Second)
	for {
		release := enginetest.Hold(t, tab)
		caps, err := capture.CaptureAll(ctx, tab, capture.DefaultFrameDepth)
		if err != nil {
			release()
			t.Fatal(err)
		}
		complete := capture.SurfaceComplete(tab, caps)
		if complete || time.Now().After(deadline) {
			s := &capture.Snapshot{}
			capture.BindRefs(tab, caps, s)
			capture.AssignLocators(ctx, tab, caps)
			release()
			if !complete {
				t.Fatalf("the surface did not capture completely within 30 s")
			}
			return s
		}
		release()
		// A bounded poll (30 s, for a loaded machine): nothing tells when
		// the last frame has attached.
		time.Sleep(20 * time.Millisecond)
	}
}

func binding(t *testing.T, tab *engine.Surface, ref string) *snapshot.Binding {
	t.Helper()
	release := enginetest.Hold(t, tab)
	defer release()
	b, ok := tab.Refs().Lookup(ref)
	if !ok {
		t.Fatalf("%s is not bound", ref)
	}
	return b
}

func locatorOf(t *testing.T, tab *engine.Surface, ref string) string {
	t.Helper()
	return binding(t, tab, ref).Locator
}

func refsNamed(s *capture.Snapshot, role, name string) []capture.RefInfo {
	var out []capture.RefInfo
	for _, r := range s.Refs {
		if r.Role == role && r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

func mustLocator(t *testing.T, s string) locator.Locator {
	t.Helper()
	l, err := locator.ParseLocator(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func locateT(t *testing.T, tab *engine.Surface, loc string) ([]capture.LocMatch, error) {
	t.Helper()
	l := mustLocator(t, loc)
	release := enginetest.Hold(t, tab)
	defer release()
	return capture.Locate(ctxT(t), tab, l)
}

func locateOneT(t *testing.T, tab *engine.Surface, loc string) (*snapshot.Binding, error) {
	t.Helper()
	l := mustLocator(t, loc)
	release := enginetest.Hold(t, tab)
	defer release()
	return capture.LocateOne(ctxT(t), tab, l)
}

// checkLocators proves every stored locator of the snapshot's refs: it
// resolves on the whole surface to exactly the ref's element. It returns
// how many refs have one.
func checkLocators(t *testing.T, tab *engine.Surface, s *capture.Snapshot) int {
	t.Helper()
	n := 0
	for _, r := range s.Refs {
		if !r.Control {
			continue // only controls get locators
		}
		b := binding(t, tab, r.Ref)
		if b.Locator == "" {
			t.Logf("%s (%s %q): no locator", r.Ref, r.Role, r.Name)
			continue
		}
		n++
		if strings.Contains(b.Locator, "unstable") || strings.Contains(b.Locator, "ambiguous") {
			t.Errorf("%s: locator %q", r.Ref, b.Locator)
		}
		ms, err := locateT(t, tab, b.Locator)
		if err != nil {
			t.Errorf("%s (%s %q): locator %s: %v", r.Ref, r.Role, r.Name, b.Locator, err)
			continue
		}
		if len(ms) != 1 {
			t.Errorf("%s (%s %q): locator %s matches %d elements", r.Ref, r.Role, r.Name, b.Locator, len(ms))
			continue
		}
		m := ms[0]
		if m.Frame() != b.Doc.Frame || m.World().ContextID() != b.Doc.World || m.Elem() != b.Elem {
			t.Errorf("%s (%s %q): locator %s matches another element (frame %s elem %d, want frame %s elem %d)",
				r.Ref, r.Role, r.Name, b.Locator, m.Frame(), m.Elem(), b.Doc.Frame, b.Elem)
		}
	}
	return n
}

func TestLocatorsRepeatedControls(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "locators/repeated.html")
	s := locSnap(t, tab)
	dels := refsNamed(s, "button", "Delete")
	if len(dels) != 5 {
		t.Fatalf("want 5 Delete buttons, got %d", len(dels))
	}
	seen := map[string]string{}
	for _, r := range dels {
		l := locatorOf(t, tab, r.Ref)
		if l == "" {
			t.Errorf("%s has no locator", r.Ref)
			continue
		}
		if strings.HasPrefix(l, "role=") {
			t.Errorf("%s: a repeated name cannot make a locator: %s", r.Ref, l)
		}
		if other, ok := seen[l]; ok {
			t.Errorf("%s and %s share the locator %s", other, r.Ref, l)
		}
		seen[l] = r.Ref
	}
	all := refsNamed(s, "button", "Delete all")
	if len(all) != 1 || locatorOf(t, tab, all[0].Ref) != `role=button[name="Delete all"]` {
		t.Errorf("Delete all: %v %q", all, locatorOf(t, tab, all[0].Ref))
	}
	if n := checkLocators(t, tab, s); n != controlRefs(s) {
		t.Errorf("%d of %d refs have a locator", n, len(s.Refs))
	}

	// The role locator they share is ambiguous: every candidate is listed.
	ms, err := locateT(t, tab, `role=button[name="Delete"]`)
	if err != nil || len(ms) != 5 {
		t.Fatalf("role=button[name=Delete]: %d matches, %v", len(ms), err)
	}
	_, err = locateOneT(t, tab, `role=button[name="Delete"]`)
	e := wantCode(t, err, apitype.Ambiguous)
	if len(e.Candidates) != 5 {
		t.Fatalf("candidates %v", e.Candidates)
	}
	for i, c := range e.Candidates {
		if c != dels[i].Ref {
			t.Errorf("candidate %d is %s, want %s (document order, the refs already issued)", i, c, dels[i].Ref)
		}
	}

	// A located element is one a verb can use: the third row's button.
	b, err := locateOneT(t, tab, locatorOf(t, tab, dels[2].Ref))
	if err != nil {
		t.Fatal(err)
	}
	if b.Ref != dels[2].Ref {
		t.Fatalf("located %s, want %s", b.Ref, dels[2].Ref)
	}
	if _, err := enginetest.FrameClick(t, tab, b.Ref, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "deleted photo.png" {
		t.Fatalf("status %q", got)
	}
}

func TestLocatorsHiddenCopy(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "locators/hidden.html")
	s := locSnap(t, tab)
	msgs := refsNamed(s, "textbox", "Message")
	if len(msgs) != 1 {
		t.Fatalf("want the one visible Message editor in the snapshot, got %v", msgs)
	}
	if l := locatorOf(t, tab, msgs[0].Ref); l != `role=textbox[name="Message"]` {
		t.Fatalf("visible editor's locator %q", l)
	}
	// None of the hidden copies matches.
	ms, err := locateT(t, tab, `role=textbox[name="Message"]`)
	if err != nil || len(ms) != 1 {
		t.Fatalf("%d matches, %v", len(ms), err)
	}
	// A CSS selector sees them all (and so is not what the editor gets).
	if ms, err := locateT(t, tab, `css=textarea`); err != nil || len(ms) != 5 {
		t.Fatalf("css=textarea: %d matches (want the 5 in the document, none in the template), %v", len(ms), err)
	}
	checkLocators(t, tab, s)
	if _, err := action.Fill(ctxT(t), tab, msgs[0].Ref, "hello"); err != nil {
		t.Fatal(err)
	}
}

func TestLocatorsWrapperAndIDs(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "locators/wrapper.html")
	s := locSnap(t, tab)
	one := func(role, name string) string {
		t.Helper()
		rs := refsNamed(s, role, name)
		if len(rs) != 1 {
			t.Fatalf("want one %s %q, got %v", role, name, rs)
		}
		return rs[0].Ref
	}
	save := one("button", "Save")
	for ref, want := range map[string]string{
		save:                           `role=button[name="Save"]`, // not the wrapper's testid
		one("link", "Save"):            `role=link[name="Save"]`,
		one("button", "Publish now"):   `testid=publish`,
		one("button", "One"):           `role=button[name="One"]`, // its testid is not unique
		one("button", "Two"):           `role=button[name="Two"]`,
		one("button", "Shadow action"): `role=button[name="Shadow action"]`,
	} {
		if got := locatorOf(t, tab, ref); got != want {
			t.Errorf("%s: locator %q, want %q", ref, got, want)
		}
	}
	cancels := refsNamed(s, "button", "Cancel")
	if len(cancels) != 2 {
		t.Fatalf("cancel buttons %v", cancels)
	}
	if got := locatorOf(t, tab, cancels[0].Ref); got != "#cancel-btn" {
		t.Errorf("the Cancel with an id: %q", got)
	}
	if got := locatorOf(t, tab, cancels[1].Ref); !strings.HasPrefix(got, "css=") {
		t.Errorf("the Cancel without an id: %q", got)
	}
	// In a shadow root there is no CSS path: twins get nothing.
	for _, r := range refsNamed(s, "button", "Twin") {
		if got := locatorOf(t, tab, r.Ref); got != "" {
			t.Errorf("shadow twin %s: %q", r.Ref, got)
		}
	}
	checkLocators(t, tab, s)

	// The wrapper's testid finds the wrapper, not the button: a locator
	// whose element is not the ref's.
	ms, err := locateT(t, tab, `testid=save-wrapper`)
	if err != nil || len(ms) != 1 {
		t.Fatalf("testid=save-wrapper: %d, %v", len(ms), err)
	}
	if b := binding(t, tab, save); ms[0].Elem() == b.Elem || ms[0].Role() == "button" {
		t.Fatalf("the wrapper testid matched the button (%+v)", ms[0])
	}
	if ms, err := locateT(t, tab, `testid=dup`); err != nil || len(ms) != 2 {
		t.Fatalf("testid=dup: %d, %v", len(ms), err)
	}
	if _, err := locateT(t, tab, `css=button[`); err == nil {
		t.Fatal("a bad selector was accepted")
	} else {
		wantCode(t, err, apitype.BadInput)
	}
	if ms, err := locateT(t, tab, `role=button[name="Nothing here"]`); err != nil || len(ms) != 0 {
		t.Fatalf("no match: %v %v", ms, err)
	}
	_, err = locateOneT(t, tab, `role=button[name="Nothing here"]`)
	wantCode(t, err, apitype.RefNotFound)
}

func TestLocatorsAcrossFrames(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("locators/frametop.html"))
	s := locSnap(t, tab)
	_, _, sends := frameIDs(t, s, "button", "Send", 3)
	locs := map[string]string{}
	var frames []string
	for f, ref := range sends {
		l := locatorOf(t, tab, ref)
		if l == "" {
			t.Fatalf("Send in frame %q has no locator:\n%s", f, s.Text)
		}
		if l == `role=button[name="Send"]` {
			t.Errorf("Send in frame %q: the role and name are not unique on the surface", f)
		}
		locs[f] = l
		if f != "" {
			frames = append(frames, f)
		}
	}
	if strings.Contains(locs[""], ">>") {
		t.Errorf("the top document's Send has a frame path: %s", locs[""])
	}
	var cross string
	for _, f := range frames {
		fs, _ := tab.Frame(f)
		label := "Inner same"
		if fs.Session != tab.Session() {
			label, cross = "Inner cross", f
		}
		want := `role=iframe[name="` + label + `"] >> role=button[name="Send"]`
		if locs[f] != want {
			t.Errorf("Send in %s: %s, want %s", label, locs[f], want)
		}
		for _, r := range s.Refs {
			if r.FrameID == f && r.Name == "OK" {
				if got, want := locatorOf(t, tab, r.Ref), `role=iframe[name="`+label+`"] >> testid=ok`; got != want {
					t.Errorf("OK in %s: %s, want %s", label, got, want)
				}
			}
		}
	}
	if cross == "" {
		t.Fatal("no cross-site frame")
	}
	if n := checkLocators(t, tab, s); n != controlRefs(s) {
		t.Errorf("%d of %d control refs have a locator:\n%s", n, controlRefs(s), s.Text)
	}

	// A frame locator resolves into the cross-site frame and acts there.
	b, err := locateOneT(t, tab, locs[cross])
	if err != nil {
		t.Fatal(err)
	}
	if b.Ref != sends[cross] {
		t.Fatalf("located %s, want %s", b.Ref, sends[cross])
	}
	if _, err := enginetest.FrameClick(t, tab, b.Ref, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := snap(t, tab); !strings.Contains(after.Text, "sent:cross:true") {
		t.Fatalf("click did not land in the cross-site frame:\n%s", after.Text)
	}

	// The role locator alone matches in all three documents.
	if ms, err := locateT(t, tab, `role=button[name="Send"]`); err != nil || len(ms) != 3 {
		t.Fatalf("role=button[name=Send]: %d, %v", len(ms), err)
	}
	// A frame step must be exactly one iframe.
	_, err = locateT(t, tab, `role=iframe >> role=button[name="Send"]`)
	var fe *capture.FrameStepError
	if !errors.As(err, &fe) || len(fe.Matches()) != 2 {
		t.Fatalf("two iframes before >>: %v", err)
	}
	_, err = locateOneT(t, tab, `role=iframe >> role=button[name="Send"]`)
	if e := wantCode(t, err, apitype.Ambiguous); len(e.Candidates) != 2 {
		t.Fatalf("candidates %v", e.Candidates)
	}
	_, err = locateOneT(t, tab, `css=header > button >> role=button[name="Send"]`)
	wantCode(t, err, apitype.RefNotFound)
	if ms, err := locateT(t, tab, `css=iframe:nth-of-type(2) >> role=button[name="Again"]`); err != nil || len(ms) != 2 || ms[0].Frame() != cross {
		t.Fatalf("two Again in the cross frame: %+v %v", ms, err)
	}
}

// TestLocatorsOnFixtures proves the locator rule on every fixture page:
// each stored locator resolves to exactly its ref's element.
func TestLocatorsOnFixtures(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	pages := []string{
		"basic.html", "form.html", "form2.html", "controls.html", "dupes.html", "names.html", "aria.html",
		"landmarks.html", "patterns.html", "shadow.html", "tables.html", "media.html", "modal.html", "compact.html",
		"locators/repeated.html", "locators/hidden.html", "locators/wrapper.html", "locators/checkout2.html",
		a.Page("frames/top.html"), a.Page("frames/chain.html"), a.Page("locators/frametop.html"), a.Page("locators/nest.html"),
	}
	tab := openTab(t, "") // for every page in turn (see enginetest.Goto)
	for _, p := range pages {
		t.Run(strings.TrimPrefix(strings.TrimPrefix(p, a.URL), "/"), func(t *testing.T) {
			gotoPage(t, tab, p)
			s := locSnap(t, tab)
			n := checkLocators(t, tab, s)
			t.Logf("%d of %d refs have a locator", n, len(s.Refs))
			if len(s.Refs) > 0 && n == 0 {
				t.Errorf("no ref got a locator:\n%s", s.Text)
			}
		})
	}
}

// TestLocatorsIncompleteKeepsPrevious: a partial capture proves nothing
// about the surface; locators proven before are kept, none are made.
func TestLocatorsIncompleteKeepsPrevious(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "locators/wrapper.html")
	s := locSnap(t, tab)
	ref := refsNamed(s, "button", "Publish now")[0].Ref
	if got := locatorOf(t, tab, ref); got != "testid=publish" {
		t.Fatalf("locator %q", got)
	}
	ctx := ctxT(t)
	release := enginetest.Hold(t, tab)
	caps, err := capture.CaptureAll(ctx, tab, capture.DefaultFrameDepth)
	if err != nil {
		release()
		t.Fatal(err)
	}
	for _, c := range caps {
		c.MarkPartial()
	}
	b, _ := tab.Refs().Lookup(ref)
	b.Locator = "#kept"
	capture.BindRefs(tab, caps, &capture.Snapshot{})
	capture.AssignLocators(ctx, tab, caps)
	got := b.Locator
	release()
	if got != "#kept" {
		t.Fatalf("a partial capture changed the locator to %q", got)
	}
	locSnap(t, tab)
	if got := locatorOf(t, tab, ref); got != "testid=publish" {
		t.Fatalf("a complete capture did not recompute: %q", got)
	}
}

// TestLocatorsNestedFrames: a frame path of any depth, through a
// cross-site frame and back.
func TestLocatorsNestedFrames(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("locators/nest.html"))
	s := locSnap(t, tab)
	sends := refsNamed(s, "button", "Send")
	if len(sends) != 3 {
		t.Fatalf("Send buttons %v:\n%s", sends, s.Text)
	}
	var leaf capture.RefInfo
	for _, r := range sends {
		if tab.FrameDepth(binding(t, tab, r.Ref).Doc.Frame) == 2 {
			leaf = r
		}
	}
	want := `role=iframe[name="Outer"] >> role=iframe[name="Inner"] >> role=button[name="Send"]`
	if got := locatorOf(t, tab, leaf.Ref); got != want {
		t.Fatalf("leaf Send: %q, want %q", got, want)
	}
	if n := checkLocators(t, tab, s); n != controlRefs(s) {
		t.Errorf("%d of %d refs have a locator", n, len(s.Refs))
	}
	b, err := locateOneT(t, tab, want)
	if err != nil || b.Ref != leaf.Ref {
		t.Fatalf("located %v, %v; want %s", b, err, leaf.Ref)
	}
	if _, err := enginetest.FrameClick(t, tab, b.Ref, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if after := snap(t, tab); !strings.Contains(after.Text, "sent:leaf:true") {
		t.Fatalf("click did not land in the nested frame:\n%s", after.Text)
	}
}

// TestLocatorsTopDocumentConservative: a top-document candidate that also
// matches in a subframe is not used, and with nothing else the ref has no
// locator (the top document has no frame path to narrow it).
func TestLocatorsTopDocumentConservative(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := locSnap(t, tab)
	top, _, _ := frameIDs(t, s, "button", "Go", 3)
	// Its role and name repeat in both frames; its CSS path, :root > body
	// > button, also matches in them.
	if got := locatorOf(t, tab, top); got != "" {
		t.Errorf("top Go: %q", got)
	}
	// #name is unique in the top document, but each frame has one too.
	topName, _, _ := frameIDs(t, s, "textbox", "Name", 3)
	if got := locatorOf(t, tab, topName); got != "" {
		t.Errorf("top Name: %q", got)
	}
	if ms, err := locateT(t, tab, "#name"); err != nil || len(ms) != 3 {
		t.Fatalf("#name: %d matches, %v", len(ms), err)
	}
	checkLocators(t, tab, s)
}

// TestLocatorRolesMatchAgent keeps capture.LocatorRoles equal to the roles the
// agent always gives a ref (ACTION_ROLES and SCOPE_ROLES).
func TestLocatorRolesMatchAgent(t *testing.T) {
	t.Parallel()
	src := snapshot.AgentScript()
	agent := map[string]bool{}
	for _, set := range []string{"ACTION_ROLES", "SCOPE_ROLES"} {
		re := regexp.MustCompile(`const ` + set + ` = new Set\(\[([^\]]*)\]\)`)
		m := re.FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("%s not found in the agent", set)
		}
		for _, q := range regexp.MustCompile(`'([a-z-]+)'`).FindAllStringSubmatch(m[1], -1) {
			agent[q[1]] = true
		}
	}
	if !reflect.DeepEqual(agent, capture.LocatorRoles) {
		t.Fatalf("agent ref roles %v\nlocatorRoles %v", agent, capture.LocatorRoles)
	}
}

// controlRefs counts a snapshot's refs of controls (the ones with locators).
func controlRefs(s *capture.Snapshot) int {
	n := 0
	for _, r := range s.Refs {
		if r.Control {
			n++
		}
	}
	return n
}
