package action_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/input"
	"github.com/loupe-dev/loupe/internal/keys"
)

func TestFramesSameAndCrossSite(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snap(t, tab)
	for _, want := range []string{"top idle", "same idle", "cross idle", `iframe "same-origin frame"`, `iframe "cross-site frame"`} {
		if !strings.Contains(s.Text, want) {
			t.Fatalf("snapshot lacks %q:\n%s", want, s.Text)
		}
	}
	// Frame content is indented under its iframe node.
	if !strings.Contains(s.Text, "- iframe \"cross-site frame\" [ref=") || !strings.Contains(s.Text, "\n  - button \"Go\" [ref=") {
		t.Fatalf("frame content not under its iframe:\n%s", s.Text)
	}
	_, _, goRefs := frameIDs(t, s, "button", "Go", 3)
	_, _, nameRefs := frameIDs(t, s, "textbox", "Name", 3)
	seen := map[string]bool{}
	for _, m := range []map[string]string{goRefs, nameRefs} {
		for _, r := range m {
			if seen[r] {
				t.Fatalf("ref %s printed twice", r)
			}
			seen[r] = true
		}
	}
	// Which frame is which: the same-origin frame is in the page's
	// session, the cross-site one has its own.
	labels := map[string]string{"": "top"}
	for f := range goRefs {
		if f == "" {
			continue
		}
		fs, _ := tab.Frame(f)
		if fs.Session == tab.Session() {
			labels[f] = "same"
		} else {
			labels[f] = "cross"
		}
	}
	if len(labels) != 3 {
		t.Fatalf("frames: %v", labels)
	}
	for f, ref := range goRefs {
		if _, err := enginetest.FrameClick(t, tab, ref, action.ClickOptions{}); err != nil {
			t.Fatalf("click %s in %s: %v", ref, labels[f], err)
		}
	}
	for f, ref := range nameRefs {
		if _, err := action.Fill(ctxT(t), tab, ref, "hi-"+labels[f]); err != nil {
			t.Fatalf("fill %s in %s: %v", ref, labels[f], err)
		}
	}
	after := snap(t, tab)
	for _, want := range []string{"clicked:top", "clicked:same:true", "clicked:cross:true", "typed:top:hi-top", "typed:same:hi-same", "typed:cross:hi-cross"} {
		if !strings.Contains(after.Text, want) {
			t.Errorf("after acting in each frame, %q is missing:\n%s", want, after.Text)
		}
	}
	// Refs are kept across snapshots of the same documents, in every frame.
	for f, ref := range goRefs {
		if got := refsByFrame(after, "button", "Go")[f]; got != ref {
			t.Errorf("%s frame's Go changed ref: %s -> %s", labels[f], ref, got)
		}
	}
	// Reads route to the frame too.
	for f, ref := range nameRefs {
		v, _, err := action.Read(ctxT(t), tab, ref, "value", "")
		if err != nil || v != "hi-"+labels[f] {
			t.Errorf("value of %s in %s: %q %v", ref, labels[f], v, err)
		}
		box, err := action.Box(ctxT(t), tab, ref)
		if err != nil || box.Width == 0 {
			t.Errorf("box of %s: %+v %v", ref, box, err)
		}
	}
	if _, err := action.Screenshot(ctxT(t), tab, action.ScreenshotOptions{Ref: goRefs[subFrame(labels, "cross")]}); err != nil {
		t.Errorf("screenshot of an element in the cross-site frame: %v", err)
	}
}

func subFrame(labels map[string]string, want string) string {
	for f, l := range labels {
		if l == want {
			return f
		}
	}
	return ""
}

func TestFrameChainMixedSites(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/chain.html"))
	// The deepest frame loads last; wait for it by its text.
	if _, err := nav.Wait(ctxT(t), tab, nav.WaitOptions{Load: true}); err != nil {
		t.Fatal(err)
	}
	var s *capture.Snapshot
	eventually(t, "the deepest frame", func() bool { // frames attach as they load
		s = snap(t, tab)
		return strings.Contains(s.Text, "MK-CHAIN-3")
	})
	for lv := 0; lv <= 3; lv++ {
		mk := "MK-CHAIN-" + string(rune('0'+lv))
		if !strings.Contains(s.Text, mk) {
			t.Fatalf("level %d missing:\n%s", lv, s.Text)
		}
	}
	for lv := 0; lv <= 3; lv++ {
		name := "Level " + string(rune('0'+lv))
		if _, err := enginetest.FrameClick(t, tab, ref(t, s, "button", name), action.ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", name, err)
		}
	}
	after := snap(t, tab)
	for lv := 0; lv <= 3; lv++ {
		if !strings.Contains(after.Text, "clicked:"+string(rune('0'+lv))) {
			t.Errorf("level %d not clicked:\n%s", lv, after.Text)
		}
	}
}

func TestFrameRemovedOrNavigatedIsStale(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snap(t, tab)
	_, _, goRefs := frameIDs(t, s, "button", "Go", 3)
	var cross, same string
	for f, r := range goRefs {
		if f == "" {
			continue
		}
		if fs, _ := tab.Frame(f); fs.Session != tab.Session() {
			cross = r
		} else {
			same = r
		}
	}
	if _, err := action.Eval(ctxT(t), tab, "document.getElementById('cross').remove()"); err != nil {
		t.Fatal(err)
	}
	_, err := action.Click(ctxT(t), tab, cross, action.ClickOptions{})
	wantCode(t, err, apitype.StaleRef)
	// The same-origin frame navigates: its old refs are stale too.
	if _, err := action.Eval(ctxT(t), tab, "document.getElementById('same').src = '/frames/child.html?label=again'; 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(ctxT(t), tab, nav.WaitOptions{Load: true}); err != nil {
		t.Fatal(err)
	}
	var e error
	eventually(t, "the old frame's ref to be refused", func() bool { // the navigation commits asynchronously
		_, e = action.Click(ctxT(t), tab, same, action.ClickOptions{})
		return e != nil
	})
	wantCode(t, e, apitype.StaleRef)
	// The ref is refused from the moment the navigation starts; the new
	// document commits in its own time (no event reaches the test).
	var after *capture.Snapshot
	eventually(t, "the frame's new document", func() bool {
		after = snap(t, tab)
		return strings.Contains(after.Text, "again idle")
	})
	if strings.Contains(after.Text, "cross idle") {
		t.Errorf("after removal and navigation:\n%s", after.Text)
	}
}

func TestShadowRootActions(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "shadow.html")
	s := snap(t, tab)
	if _, err := action.Fill(ctxT(t), tab, ref(t, s, "textbox", "Shadow input"), "in the shadow"); err != nil {
		t.Fatal(err)
	}
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Deep Shadow Button"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	after := snap(t, tab)
	if !strings.Contains(after.Text, "clicked-shadow-deep") || !strings.Contains(after.Text, `textbox "Shadow input" [ref=`) ||
		!strings.Contains(after.Text, ": in the shadow") {
		t.Fatalf("shadow actions:\n%s", after.Text)
	}
	if !strings.Contains(after.Text, "Slotted body MK-SHADOW-SLOT-e5b9") {
		t.Fatalf("slotted content missing:\n%s", after.Text)
	}
}

// TestVerbsInCrossSiteFrame runs every verb on elements of a cross-site
// frame that sits below the fold, inside a bordered, padded iframe, with a
// target far down the frame's own scroll: the routing, scrolling and
// coordinate translation all have to be right.
func TestVerbsInCrossSiteFrame(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/verbstop.html"))
	s := snap(t, tab)
	frameOf := func(role, name string) string {
		for _, r := range s.Refs {
			if r.Role == role && r.Name == name {
				if r.FrameID == "" {
					t.Fatalf("%s %q is not in the frame", role, name)
				}
				return r.Ref
			}
		}
		t.Fatalf("no %s %q:\n%s", role, name, s.Text)
		return ""
	}
	status := func() string { return oopifEval(t, tab, "document.getElementById('status').textContent") }
	// Nothing a snapshot does may focus, scroll or reload a frame.
	if _, err := action.Focus(ctxT(t), tab, ref(t, s, "textbox", "Query")); err != nil {
		t.Fatal(err)
	}
	before := sideState(t, tab)
	snap(t, tab)
	snap(t, tab)
	if after := sideState(t, tab); after != before {
		t.Fatalf("a snapshot changed the page: %s -> %s", before, after)
	}

	check := func(want string) {
		t.Helper()
		if got := status(); got != want {
			t.Fatalf("status %q, want %q", got, want)
		}
	}
	if _, err := action.SetChecked(ctxT(t), tab, frameOf("checkbox", "Tick"), true); err != nil {
		t.Fatal(err)
	}
	check("tick:true")
	if _, err := action.Select(ctxT(t), tab, frameOf("combobox", "Pick"), []string{"Banana"}); err != nil {
		t.Fatal(err)
	}
	check("pick:b")
	if _, err := action.Hover(ctxT(t), tab, frameOf("button", "Hover here")); err != nil {
		t.Fatal(err)
	}
	check("hovered")
	if _, err := enginetest.FrameClick(t, tab, frameOf("button", "Double"), action.ClickOptions{Count: 2}); err != nil {
		t.Fatal(err)
	}
	check("double")
	if _, err := enginetest.FrameClick(t, tab, frameOf("button", "Deep down"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	check("deep:true")
	words := frameOf("textbox", "Words")
	if _, err := action.Type(ctxT(t), tab, words, "abc"); err != nil {
		t.Fatal(err)
	}
	if v, _, err := action.Read(ctxT(t), tab, words, "value", ""); err != nil || v != "abc" {
		t.Fatalf("typed value %q %v", v, err)
	}
	if _, err := action.Focus(ctxT(t), tab, words); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Control+A", "Backspace"} {
		c, _ := keys.ParseChord(k)
		if _, err := action.Press(ctxT(t), tab, []keys.Chord{c}); err != nil {
			t.Fatal(err)
		}
	}
	if v, _, _ := action.Read(ctxT(t), tab, words, "value", ""); v != "" {
		t.Fatalf("after Control+A Backspace in the frame: %q", v)
	}
	if h, _, err := action.Read(ctxT(t), tab, frameOf("button", "Double"), "html", ""); err != nil || !strings.HasPrefix(h, `<button type="button" id="d">`) {
		t.Fatalf("html: %q %v", h, err)
	}
	if v, ok, err := action.Read(ctxT(t), tab, words, "attr", "id"); err != nil || !ok || v != "t" {
		t.Fatalf("attr: %q %v %v", v, ok, err)
	}
	if st, err := action.State(ctxT(t), tab, frameOf("checkbox", "Tick")); err != nil || st.Checked != true {
		t.Fatalf("state: %+v %v", st, err)
	}
	if _, err := action.Scroll(ctxT(t), tab, frameOf("button", "Deep down"), action.ScrollOptions{}); err != nil {
		t.Fatal(err)
	}
}

// sideState is what a snapshot must not change: focus, scroll positions and
// the number of loads of the frame.
func sideState(t *testing.T, tab *engine.Surface) string {
	t.Helper()
	top, err := action.Eval(ctxT(t), tab, "JSON.stringify([document.activeElement.id, scrollX, scrollY, document.hasFocus()])")
	if err != nil {
		t.Fatal(err)
	}
	return string(top) + " " + oopifEval(t, tab,
		"JSON.stringify([document.activeElement && document.activeElement.id, scrollY, sessionStorage.loads, document.hasFocus()])")
}

// oopifEval evaluates a string expression in the page's main world of the
// tab's (only) out-of-process frame.
func oopifEval(t *testing.T, tab *engine.Surface, expr string) string {
	t.Helper()
	sess := enginetest.OOPIF(t, tab).Session
	var res struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := sess.Call(ctxT(t), "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		t.Fatal(err)
	}
	return res.Result.Value
}

// TestSubframePressThatNeverArrives: in a frame, the press check reports a
// click whose press never reached the element's document (the browser
// routed it to another frame) as missed — the engine's NOT_ACTIONABLE,
// executed — rather than as a click that landed. Sending no input at all
// after arming the check stands in for input routed elsewhere.
func TestSubframePressThatNeverArrives(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/chain.html"))
	var s *capture.Snapshot
	eventually(t, "the first frame", func() bool {
		s = snap(t, tab)
		return strings.Contains(s.Text, `button "Level 1"`)
	})
	el, err := capture.Resolve(ctxT(t), tab, ref(t, s, "button", "Level 1"))
	if err != nil {
		t.Fatal(err)
	}
	if el.Frame == tab.Root() {
		t.Fatal("Level 1 is not in a subframe")
	}
	if r := pressVerdict(t, el, func() {}); !r.Missed || r.Detail != "" {
		t.Fatalf("a press that never came: %+v, want missed", r)
	}
	// A click that reaches it is not missed (the check is disarmed above).
	if _, err := enginetest.FrameClick(t, tab, ref(t, s, "button", "Level 1"), action.ClickOptions{}); err != nil {
		t.Fatalf("a click that lands: %v", err)
	}
}

// TestTopPressDroppedOrUnreleased: in a top document too, the press check
// tells a click the document never saw (the browser acknowledged input no
// page received while a window the page opened was held: package popups)
// from one that landed, and a press whose release never came (no click
// fired) from both. Sending no input, or only the press, stands in for
// what the browser dropped.
func TestTopPressDroppedOrUnreleased(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "basic.html")
	s := snap(t, tab)
	el, err := capture.Resolve(ctxT(t), tab, ref(t, s, "button", "Cancel"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, send func(), want verdict) {
		t.Helper()
		if r := pressVerdict(t, el, send); r != want {
			t.Errorf("%s: %+v, want %+v", what, r, want)
		}
	}
	check("no input", func() {}, verdict{Missed: true})
	// Where a click lands on it (the click scrolls it into view).
	clicked, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Cancel"), action.ClickOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, y := clicked.X, clicked.Y
	check("a press alone", func() {
		if err := input.LeftDown(ctxT(t), tab.Session(), x, y); err != nil {
			t.Fatal(err)
		}
	}, verdict{Unreleased: true})
	if err := input.LeftUp(ctxT(t), tab.Session(), x, y); err != nil {
		t.Fatal(err)
	}
	check("a whole click", func() {
		if err := input.Click(ctxT(t), tab.Session(), x, y, "left", 1, 0); err != nil {
			t.Fatal(err)
		}
	}, verdict{})
}

// verdict is what the page agent's press check says of a click.
type verdict struct {
	Detail     string `json:"detail"`
	Missed     bool   `json:"missed"`
	Unreleased bool   `json:"unreleased"`
}

// pressVerdict arms the press check on el, runs send (the input, or none),
// and returns the check's verdict, with short bounds (100 ms to settle,
// 200 ms late): what is awaited either has arrived or never will.
func pressVerdict(t *testing.T, el *capture.Element, send func()) verdict {
	t.Helper()
	var armed struct {
		OK  bool `json:"ok"`
		Seq int  `json:"seq"`
	}
	if err := el.World.Call(ctxT(t), "armPress", &armed, el.Elem); err != nil || !armed.OK {
		t.Fatalf("armPress: %+v %v", armed, err)
	}
	send()
	var r verdict
	if err := el.World.Call(ctxT(t), "afterPress", &r, armed.Seq, 100, 200, 0); err != nil {
		t.Fatal(err)
	}
	return r
}
