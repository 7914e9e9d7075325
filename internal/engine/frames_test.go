package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/input"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// refsByName returns the refs with that role and name, keyed by frame id
// ("" for the top document).
func refsByFrame(s *Snapshot, role, name string) map[string]string {
	out := map[string]string{}
	for _, r := range s.Refs {
		if r.Role == role && r.Name == name {
			out[r.FrameID] = r.Ref
		}
	}
	return out
}

func frameIDs(t *testing.T, s *Snapshot, role, name string, want int) (top string, subs []string, byFrame map[string]string) {
	t.Helper()
	byFrame = refsByFrame(s, role, name)
	if len(byFrame) != want {
		t.Fatalf("want %d %s %q (one per frame), got %v in:\n%s", want, role, name, byFrame, s.Text)
	}
	for f := range byFrame {
		if f == "" {
			top = byFrame[f]
		} else {
			subs = append(subs, f)
		}
	}
	return top, subs, byFrame
}

func TestFramesSameAndCrossSite(t *testing.T) {
	a, _ := testpages.StartPair(t)
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
		fs, _ := tab.frameState(f)
		if fs.sess == tab.sess {
			labels[f] = "same"
		} else {
			labels[f] = "cross"
		}
	}
	if len(labels) != 3 {
		t.Fatalf("frames: %v", labels)
	}
	for f, ref := range goRefs {
		if _, err := tab.Click(ctxT(t), ref, ClickOptions{}); err != nil {
			t.Fatalf("click %s in %s: %v", ref, labels[f], err)
		}
	}
	for f, ref := range nameRefs {
		if _, err := tab.Fill(ctxT(t), ref, "hi-"+labels[f]); err != nil {
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
		v, _, err := tab.Read(ctxT(t), ref, "value", "")
		if err != nil || v != "hi-"+labels[f] {
			t.Errorf("value of %s in %s: %q %v", ref, labels[f], v, err)
		}
		box, err := tab.Box(ctxT(t), ref)
		if err != nil || box.Width == 0 {
			t.Errorf("box of %s: %+v %v", ref, box, err)
		}
	}
	if _, err := tab.Screenshot(ctxT(t), ScreenshotOptions{Ref: goRefs[subFrame(labels, "cross")]}); err != nil {
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
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/chain.html"))
	// The deepest frame loads last; wait for it by its text.
	if _, err := tab.Wait(withTimeout(ctxT(t), 5*time.Second), WaitOptions{Load: true}); err != nil {
		t.Fatal(err)
	}
	var s *Snapshot
	for i := 0; i < 50; i++ { // bounded: frames attach as they load
		s = snap(t, tab)
		if strings.Contains(s.Text, "MK-CHAIN-3") {
			break
		}
		tab.Wait(withTimeout(ctxT(t), 100*time.Millisecond), WaitOptions{Text: "never"})
	}
	for lv := 0; lv <= 3; lv++ {
		mk := "MK-CHAIN-" + string(rune('0'+lv))
		if !strings.Contains(s.Text, mk) {
			t.Fatalf("level %d missing:\n%s", lv, s.Text)
		}
	}
	for lv := 0; lv <= 3; lv++ {
		name := "Level " + string(rune('0'+lv))
		if _, err := tab.Click(ctxT(t), ref(t, s, "button", name), ClickOptions{}); err != nil {
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

func TestBackendIDsCollideAcrossRenderers(t *testing.T) {
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/collide.html"))
	s, err := tab.Snapshot(ctxT(t), SnapshotOptions{BackendIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64][]RefInfo{}
	for _, r := range s.Refs {
		if r.BackendNodeID == 0 {
			t.Fatalf("ref %s has no backendNodeId", r.Ref)
		}
		byID[r.BackendNodeID] = append(byID[r.BackendNodeID], r)
	}
	var pair []RefInfo
	for id, rs := range byID {
		if len(rs) < 2 {
			continue
		}
		if rs[0].FrameID == rs[1].FrameID {
			t.Fatalf("backend id %d twice in one frame: %+v", id, rs)
		}
		if rs[0].Role == "button" && rs[1].Role == "button" {
			pair = rs[:2]
		}
	}
	if pair == nil {
		t.Fatalf("no two buttons share a backend node id across the renderers; the fixture no longer tests a collision:\n%+v", s.Refs)
	}
	// Each ref of the colliding pair acts on its own frame's button.
	for _, r := range pair {
		if _, err := tab.Click(ctxT(t), r.Ref, ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", r.Ref, err)
		}
	}
	after := snap(t, tab)
	for _, r := range pair {
		want := "top:" + strings.TrimPrefix(r.Name, "T")
		if strings.HasPrefix(r.Name, "C") {
			want = "child:" + strings.TrimPrefix(r.Name, "C")
		}
		if !strings.Contains(after.Text, want) {
			t.Errorf("clicking %s (%q, backend %d) did not give %q:\n%s", r.Ref, r.Name, r.BackendNodeID, want, after.Text)
		}
	}
	// A later snapshot reuses the cached ids.
	again, err := tab.Snapshot(ctxT(t), SnapshotOptions{BackendIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again.Refs {
		if r.BackendNodeID != s.Refs[i].BackendNodeID || r.Ref != s.Refs[i].Ref {
			t.Fatalf("ref %d changed: %+v -> %+v", i, s.Refs[i], r)
		}
	}
}

func TestFrameRemovedOrNavigatedIsStale(t *testing.T) {
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snap(t, tab)
	_, _, goRefs := frameIDs(t, s, "button", "Go", 3)
	var cross, same string
	for f, r := range goRefs {
		if f == "" {
			continue
		}
		if fs, _ := tab.frameState(f); fs.sess != tab.sess {
			cross = r
		} else {
			same = r
		}
	}
	if _, err := tab.Eval(ctxT(t), "document.getElementById('cross').remove()"); err != nil {
		t.Fatal(err)
	}
	_, err := tab.Click(ctxT(t), cross, ClickOptions{})
	wantCode(t, err, apitype.StaleRef)
	// The same-origin frame navigates: its old refs are stale too.
	if _, err := tab.Eval(ctxT(t), "document.getElementById('same').src = '/frames/child.html?label=again'; 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Wait(withTimeout(ctxT(t), 5*time.Second), WaitOptions{Load: true}); err != nil {
		t.Fatal(err)
	}
	var e error
	for i := 0; i < 50; i++ { // bounded: the frame's navigation commits asynchronously
		_, e = tab.Click(ctxT(t), same, ClickOptions{})
		if e != nil {
			break
		}
		tab.Wait(withTimeout(ctxT(t), 50*time.Millisecond), WaitOptions{Text: "never"})
	}
	wantCode(t, e, apitype.StaleRef)
	// The ref is refused from the moment the navigation starts; the new
	// document commits in its own time (no event reaches the test).
	var after *Snapshot
	eventually(t, "the frame's new document", func() bool {
		after = snap(t, tab)
		return strings.Contains(after.Text, "again idle")
	})
	if strings.Contains(after.Text, "cross idle") {
		t.Errorf("after removal and navigation:\n%s", after.Text)
	}
}

func TestShadowRootActions(t *testing.T) {
	tab := openTab(t, "shadow.html")
	s := snap(t, tab)
	if _, err := tab.Fill(ctxT(t), ref(t, s, "textbox", "Shadow input"), "in the shadow"); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Click(ctxT(t), ref(t, s, "button", "Deep Shadow Button"), ClickOptions{}); err != nil {
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

func TestUnreadableFrameIsLocal(t *testing.T) {
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/busytop.html"))
	snap(t, tab)
	// Keep the cross-site frame's main thread busy for 8 s with a script
	// sent on its own session: the snapshot's calls queue behind it.
	var busy *frame
	tab.mu.Lock()
	for _, f := range tab.frames {
		if f.sess != tab.sess {
			busy = f
		}
	}
	tab.mu.Unlock()
	if busy == nil {
		t.Fatal("no out-of-process frame")
	}
	go busy.sess.Call(withTimeout(ctxT(t), 20*time.Second), "Runtime.evaluate",
		map[string]string{"expression": "{ const end = Date.now() + 8000; while (Date.now() < end) {} }"}, nil)
	// The busy script is written from another goroutine: wait until the
	// frame stops answering (bounded poll, 300 ms per probe).
	for i := 0; ; i++ {
		err := busy.sess.Call(withTimeout(ctxT(t), 300*time.Millisecond), "Runtime.evaluate", map[string]string{"expression": "1"}, nil)
		if err != nil {
			break
		}
		if i == 20 {
			t.Fatal("the frame never became busy")
		}
	}
	start := time.Now()
	s := snap(t, tab)
	took := time.Since(start)
	if !strings.Contains(s.Text, "MK-BUSY-TOP") || !strings.Contains(s.Text, "MK-CHAIN-3") {
		t.Fatalf("the rest of the page is missing:\n%s", s.Text)
	}
	if !strings.Contains(s.Text, `iframe "busy frame" [ref=`) || !strings.Contains(s.Text, "[frame unreadable: timed out]") ||
		strings.Contains(s.Text, "MK-BUSY-FRAME") {
		t.Fatalf("the busy frame is not marked:\n%s", s.Text)
	}
	if took > frameTimeout+2*time.Second {
		t.Fatalf("snapshot took %v; a frame's deadline is %v", took, frameTimeout)
	}
	t.Logf("snapshot with a hung frame took %v", took)
	if _, err := tab.Click(ctxT(t), ref(t, s, "button", "Top button"), ClickOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestFrameDepthLimit(t *testing.T) {
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/chain.html"))
	var s *Snapshot
	for i := 0; i < 50; i++ { // bounded: the deepest frame attaches as it loads
		var err error
		if s, err = tab.Snapshot(ctxT(t), SnapshotOptions{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s.Text, "MK-CHAIN-3") {
			break
		}
		tab.Wait(withTimeout(ctxT(t), 100*time.Millisecond), WaitOptions{Text: "never"})
	}
	s, err := tab.Snapshot(ctxT(t), SnapshotOptions{MaxFrameDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, "MK-CHAIN-2") || strings.Contains(s.Text, "MK-CHAIN-3") ||
		!strings.Contains(s.Text, `iframe "level 3" [ref=`) || !strings.Contains(s.Text, "[frame depth limit 2]") {
		t.Fatalf("depth limit 2:\n%s", s.Text)
	}
}

// TestVerbsInCrossSiteFrame runs every verb on elements of a cross-site
// frame that sits below the fold, inside a bordered, padded iframe, with a
// target far down the frame's own scroll: the routing, scrolling and
// coordinate translation all have to be right.
func TestVerbsInCrossSiteFrame(t *testing.T) {
	a, _ := testpages.StartPair(t)
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
	if _, err := tab.Focus(ctxT(t), ref(t, s, "textbox", "Query")); err != nil {
		t.Fatal(err)
	}
	before := sideState(t, tab)
	snap(t, tab)
	snap(t, tab)
	if after := sideState(t, tab); after != before {
		t.Fatalf("a snapshot changed the page: %s -> %s", before, after)
	}

	ctx := ctxT(t)
	check := func(want string) {
		t.Helper()
		if got := status(); got != want {
			t.Fatalf("status %q, want %q", got, want)
		}
	}
	if _, err := tab.SetChecked(ctx, frameOf("checkbox", "Tick"), true); err != nil {
		t.Fatal(err)
	}
	check("tick:true")
	if _, err := tab.Select(ctx, frameOf("combobox", "Pick"), []string{"Banana"}); err != nil {
		t.Fatal(err)
	}
	check("pick:b")
	if _, err := tab.Hover(ctx, frameOf("button", "Hover here")); err != nil {
		t.Fatal(err)
	}
	check("hovered")
	if _, err := tab.Click(ctx, frameOf("button", "Double"), ClickOptions{Count: 2}); err != nil {
		t.Fatal(err)
	}
	check("double")
	if _, err := tab.Click(ctx, frameOf("button", "Deep down"), ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	check("deep:true")
	words := frameOf("textbox", "Words")
	if _, err := tab.Type(ctx, words, "abc"); err != nil {
		t.Fatal(err)
	}
	if v, _, err := tab.Read(ctx, words, "value", ""); err != nil || v != "abc" {
		t.Fatalf("typed value %q %v", v, err)
	}
	if _, err := tab.Focus(ctx, words); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Control+A", "Backspace"} {
		c, _ := input.ParseChord(k)
		if _, err := tab.Press(ctx, []input.Chord{c}); err != nil {
			t.Fatal(err)
		}
	}
	if v, _, _ := tab.Read(ctx, words, "value", ""); v != "" {
		t.Fatalf("after Control+A Backspace in the frame: %q", v)
	}
	if h, _, err := tab.Read(ctx, frameOf("button", "Double"), "html", ""); err != nil || !strings.HasPrefix(h, `<button type="button" id="d">`) {
		t.Fatalf("html: %q %v", h, err)
	}
	if v, ok, err := tab.Read(ctx, words, "attr", "id"); err != nil || !ok || v != "t" {
		t.Fatalf("attr: %q %v %v", v, ok, err)
	}
	if st, err := tab.State(ctx, frameOf("checkbox", "Tick")); err != nil || st.Checked != true {
		t.Fatalf("state: %+v %v", st, err)
	}
	if _, err := tab.Scroll(ctx, frameOf("button", "Deep down"), ScrollOptions{}); err != nil {
		t.Fatal(err)
	}
}

// sideState is what a snapshot must not change: focus, scroll positions and
// the number of loads of the frame.
func sideState(t *testing.T, tab *Tab) string {
	t.Helper()
	top, err := tab.Eval(ctxT(t), "JSON.stringify([document.activeElement.id, scrollX, scrollY, document.hasFocus()])")
	if err != nil {
		t.Fatal(err)
	}
	return string(top) + " " + oopifEval(t, tab,
		"JSON.stringify([document.activeElement && document.activeElement.id, scrollY, sessionStorage.loads, document.hasFocus()])")
}

// oopifEval evaluates a string expression in the page's main world of the
// tab's (only) out-of-process frame.
func oopifEval(t *testing.T, tab *Tab, expr string) string {
	t.Helper()
	var sess *cdp.Session
	tab.mu.Lock()
	for _, f := range tab.frames {
		if f.sess != tab.sess {
			sess = f.sess
		}
	}
	tab.mu.Unlock()
	if sess == nil {
		t.Fatal("no out-of-process frame")
	}
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

// TestWaitTextInFrames: a wait for text sees it in a cross-site frame, as
// the snapshot does, and still times out for text nowhere on the page.
func TestWaitTextInFrames(t *testing.T) {
	a, _ := testpages.StartPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	snap(t, tab) // the frames are attached
	s := snap(t, tab)
	if !strings.Contains(s.Text, "cross idle") {
		t.Fatalf("no cross-site frame text:\n%s", s.Text)
	}
	if _, err := tab.Wait(withTimeout(ctxT(t), 3*time.Second), WaitOptions{Text: "cross idle"}); err != nil {
		t.Fatalf("text in the cross-site frame: %v", err)
	}
	_, err := tab.Wait(withTimeout(ctxT(t), 300*time.Millisecond), WaitOptions{Text: "nowhere at all"})
	wantCode(t, err, apitype.Timeout)
}
