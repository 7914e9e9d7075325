package engine_test

import (
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// settled waits until every frame of the page has committed its document:
// a sandboxed frame's own process may commit after the page's load event.
func settled(t *testing.T, b *engine.Browser) {
	t.Helper()
	eventually(t, "every frame to commit", func() bool {
		l := surfaceList(t, b)
		return len(l) == 6 && !slices.ContainsFunc(l, func(s surface.Surface) bool { return s.URL == "" })
	})
}

func surfaceList(t *testing.T, b *engine.Browser) []surface.Surface {
	t.Helper()
	return surface.List(ctxT(t), b)
}

func byURL(list []surface.Surface, substr string) []surface.Surface {
	var out []surface.Surface
	for _, s := range list {
		if strings.Contains(s.URL, substr) {
			out = append(out, s)
		}
	}
	return out
}

func oneByURL(t *testing.T, list []surface.Surface, substr string) surface.Surface {
	t.Helper()
	m := byURL(list, substr)
	if len(m) != 1 {
		t.Fatalf("want one surface at %q, got %+v", substr, m)
	}
	return m[0]
}

func openSurfaces(t *testing.T) (*engine.Browser, *engine.Surface) {
	t.Helper()
	a, _ := startPair(t)
	b := ownBrowser(t)
	tab, err := b.Surface(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("surfaces/top.html")); err != nil {
		t.Fatal(err)
	}
	settled(t, b)
	return b, tab
}

func TestSurfacesListKindsParentsOrigins(t *testing.T) {
	t.Parallel()
	b, tab := openSurfaces(t)
	list := surfaceList(t, b)
	if list[0].ID != tab.ID || list[0].Kind != engine.KindTab || list[0].Title != "surfaces top" {
		t.Fatalf("first surface should be the tab %s: %+v", tab.ID, list)
	}
	seen := map[string]bool{}
	ids := map[string]bool{}
	for _, s := range list {
		if s.ParentID != "" && !seen[s.ParentID] {
			t.Fatalf("%s listed before its parent %s: %+v", s.ID, s.ParentID, list)
		}
		seen[s.ID] = true
		if ids[s.ID] || !strings.HasPrefix(s.ID, "s") {
			t.Fatalf("bad or repeated id %q", s.ID)
		}
		ids[s.ID] = true
		if s.Capabilities != (surface.Capabilities{Snapshot: true, Interaction: true, RendererEval: true}) {
			t.Fatalf("%s: capabilities %+v", s.ID, s.Capabilities)
		}
	}
	mid := oneByURL(t, list, "/surfaces/mid.html")
	nested := oneByURL(t, list, "label=nested")
	cross := oneByURL(t, list, "label=cross")
	want := []struct {
		s              surface.Surface
		parent, origin string
	}{
		{mid, tab.ID, "same-origin"},
		{nested, mid.ID, "cross-origin"},
		{cross, tab.ID, "cross-origin"},
	}
	for _, w := range want {
		if w.s.Kind != engine.KindFrame || w.s.ParentID != w.parent || w.s.OriginRelation != w.origin {
			t.Errorf("%s: want frame under %s, %s; got %+v", w.s.URL, w.parent, w.origin, w.s)
		}
	}
	var opaque int
	for _, s := range list {
		if s.Kind == engine.KindFrame && s.ParentID == tab.ID && s.OriginRelation == "opaque" {
			opaque++
		}
	}
	if opaque != 2 {
		t.Errorf("want the sandboxed and data: frames opaque, got %d in %+v", opaque, list)
	}
	if len(list) != 6 {
		t.Errorf("want 6 surfaces (tab, mid, nested, cross, sandboxed, data), got %d: %+v", len(list), list)
	}
	// The descriptor has exactly the design's fields (the wire type adds
	// "active", which is the caller's, not the browser's).
	js, _ := json.Marshal(nested)
	var m map[string]any
	_ = json.Unmarshal(js, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if got := strings.Join(keys, ","); got != "capabilities,id,kind,originRelation,parentId,url" {
		t.Errorf("descriptor keys: %s", got)
	}
}

func TestSurfaceSwitchScopesEverything(t *testing.T) {
	t.Parallel()
	b, tab := openSurfaces(t)
	list := surfaceList(t, b)
	cross := oneByURL(t, list, "label=cross")
	topSnap := snap(t, tab)

	fs, err := surface.Switch(ctxT(t), b, cross.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := surface.Describe(fs); d.ID != cross.ID {
		t.Fatalf("switch: %+v", d)
	}
	// Snapshot: the frame's document only.
	s := snap(t, fs)
	if !strings.Contains(s.Text, "cross idle") || strings.Contains(s.Text, "Surfaces top") || strings.Contains(s.Text, "mid idle") {
		t.Fatalf("frame surface snapshot is not scoped to the frame:\n%s", s.Text)
	}
	press := ref(t, s, "button", "Press")
	if _, err := action.Click(ctxT(t), fs, press, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(ctxT(t), fs, nav.WaitOptions{Text: "pressed:cross:true"}); err != nil {
		t.Fatal(err)
	}
	// Reads, eval and waits run in the frame.
	txt, err := action.PageText(ctxT(t), fs)
	if err != nil || !strings.Contains(txt, "pressed:cross:true") || strings.Contains(txt, "top idle") {
		t.Fatalf("page text of the frame surface: %q %v", txt, err)
	}
	v, err := action.Eval(ctxT(t), fs, "location.search")
	if err != nil || string(v) != `"?label=cross"` {
		t.Fatalf("eval in the frame surface: %s %v", v, err)
	}
	// The top page saw none of it.
	if got, _ := action.PageText(ctxT(t), tab); !strings.Contains(got, "top idle") {
		t.Fatalf("top page changed: %q", got)
	}

	// Refs are keyed by surface: each refuses the other's, naming it.
	topRef := ref(t, topSnap, "button", "Open popup")
	_, err = action.Click(ctxT(t), fs, topRef, action.ClickOptions{})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.RefWrongSurface || e.SurfaceID != tab.ID || !e.NotExecuted {
		t.Fatalf("tab ref on frame surface: want REF_WRONG_SURFACE naming %s, got %v", tab.ID, err)
	}
	wantStep(t, err, apitype.Step{Op: "switch", Args: map[string]string{"surface_id": tab.ID}})
	_, err = action.Click(ctxT(t), tab, press, action.ClickOptions{})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.RefWrongSurface || e.SurfaceID != cross.ID {
		t.Fatalf("frame ref on tab: want REF_WRONG_SURFACE naming %s, got %v", cross.ID, err)
	}
	// The same element has a ref of its own on each surface.
	again := snap(t, tab)
	if r := refsByFrame(again, "button", "Press")[fs.Root()]; r == "" || r == press {
		t.Fatalf("tab snapshot should give the cross frame's button its own ref (frame one %s), got %q", press, r)
	}
	// Navigation is the page's.
	_, err = nav.Reload(ctxT(t), fs)
	if codeOf(err) != apitype.SurfaceUnsupported {
		t.Fatalf("reload on a frame surface: want SURFACE_UNSUPPORTED, got %v", err)
	}
	wantStep(t, err, apitype.Step{Op: "switch", Args: map[string]string{"surface_id": tab.ID}})
	_, err = surface.SwitchWindow(ctxT(t), b, cross.ID)
	if codeOf(err) != apitype.SurfaceUnsupported {
		t.Fatalf("switch-window to a frame: want SURFACE_UNSUPPORTED, got %v", err)
	}
	wantStep(t, err, apitype.Step{Op: "switch", Args: map[string]string{"surface_id": cross.ID}})
}

func TestSurfaceIDsAcrossNavigation(t *testing.T) {
	t.Parallel()
	b, tab := openSurfaces(t)
	list := surfaceList(t, b)
	mid := oneByURL(t, list, "/surfaces/mid.html")
	cross := oneByURL(t, list, "label=cross")
	nested := oneByURL(t, list, "label=nested")

	// The same-origin frame follows a link: same surface, new document;
	// the frame below it is new.
	ms, err := b.Surface(ctxT(t), mid.ID)
	if err != nil {
		t.Fatal(err)
	}
	next := ref(t, snap(t, ms), "link", "Next page")
	if _, err := action.Click(ctxT(t), ms, next, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(ctxT(t), ms, nav.WaitOptions{URL: "page=2"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new nested frame", func() bool {
		l := surfaceList(t, b)
		return len(byURL(l, "page=2")) == 1 && len(byURL(l, "label=nested")) == 1 && byURL(l, "label=nested")[0].ID != nested.ID
	})
	list = surfaceList(t, b)
	if got := oneByURL(t, list, "page=2"); got.ID != mid.ID {
		t.Fatalf("frame navigation changed the surface id: %s → %s", mid.ID, got.ID)
	}
	if _, err := b.Surface(ctxT(t), nested.ID); codeOf(err) != apitype.SurfaceClosed {
		t.Fatalf("old nested frame: want SURFACE_CLOSED, got %v", err)
	}

	// The cross-site frame comes back to the top's site (its renderer
	// process goes away, the frame stays): same surface.
	top := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, top, "button", "Bring cross home"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the frame's new document", func() bool {
		l := surfaceList(t, b)
		h := byURL(l, "label=home")
		return len(h) == 1 && h[0].Capabilities.Snapshot
	})
	list = surfaceList(t, b)
	home := oneByURL(t, list, "label=home")
	if home.ID != cross.ID || home.OriginRelation != "same-origin" {
		t.Fatalf("frame that changed process: want %s same-origin, got %+v", cross.ID, home)
	}
	hs, err := b.Surface(ctxT(t), home.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := snap(t, hs); !strings.Contains(s.Text, "home idle") {
		t.Fatalf("snapshot of the frame after its process change:\n%s", s.Text)
	}

	// The tab navigates: same tab id; its frames are new frames.
	if _, err := nav.Navigate(ctxT(t), tab, tab.URL()); err != nil {
		t.Fatal(err)
	}
	settled(t, b)
	list = surfaceList(t, b)
	if list[0].ID != tab.ID {
		t.Fatalf("tab id changed on navigation: %+v", list[0])
	}
	for _, old := range []string{mid.ID, cross.ID} {
		if slices.ContainsFunc(list, func(s surface.Surface) bool { return s.ID == old }) {
			t.Fatalf("frame surface %s survived its parent's new document", old)
		}
	}
	if len(list) != 6 {
		t.Fatalf("after reload want 6 surfaces, got %+v", list)
	}
	// Ids are never reused.
	seen := map[string]bool{}
	for _, id := range []string{mid.ID, cross.ID, nested.ID} {
		seen[id] = true
	}
	for _, s := range list[1:] {
		if seen[s.ID] {
			t.Fatalf("id %s reused", s.ID)
		}
	}
}

func TestSurfaceLifecycle(t *testing.T) {
	t.Parallel()
	b, tab := openSurfaces(t)
	list := surfaceList(t, b)
	cross := oneByURL(t, list, "label=cross")

	// A second window, and a popup from window.open that closes itself.
	win, err := b.NewWindow(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	top := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, top, "button", "Open popup"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the popup", func() bool {
		l := surfaceList(t, b)
		return len(byURL(l, "popup.html")) == 1
	})
	list = surfaceList(t, b)
	popup := oneByURL(t, list, "popup.html")
	if popup.Kind != engine.KindTab || popup.ParentID != "" {
		t.Fatalf("popup: %+v", popup)
	}
	ws := surface.Windows(ctxT(t), b)
	if len(ws) != 3 {
		t.Fatalf("windows: %+v", ws)
	}
	wid := map[string]surface.Window{}
	for _, w := range ws {
		wid[w.ID] = w
		if w.WindowID == 0 {
			t.Fatalf("no window id for %s", w.ID)
		}
	}
	if wid[win.ID].WindowID == wid[tab.ID].WindowID {
		t.Fatalf("newWindow target shares a window with the first tab: %+v", ws)
	}
	if wid[popup.ID].OpenerID != tab.ID {
		t.Fatalf("popup should name its opener %s: %+v", tab.ID, wid[popup.ID])
	}

	// The popup closes itself: a tombstone.
	ps, err := surface.Switch(ctxT(t), b, popup.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := action.Click(ctxT(t), ps, ref(t, snap(t, ps), "button", "Close me"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ps.Closed():
	case <-ctxT(t).Done():
		t.Fatal("popup did not close")
	}
	_, err = b.Surface(ctxT(t), popup.ID)
	if e, ok := apitype.As(err); !ok || e.Code != apitype.SurfaceClosed || !strings.Contains(e.Hint, tab.ID) || !strings.Contains(e.Hint, cross.ID) {
		t.Fatalf("a closed surface: want SURFACE_CLOSED listing live surfaces, got %v", err)
	}
	wantStep(t, err, apitype.Step{Op: "switch"})
	if _, err := surface.Switch(ctxT(t), b, popup.ID); codeOf(err) != apitype.SurfaceClosed {
		t.Fatalf("switch to a closed popup: want SURFACE_CLOSED, got %v", err)
	}
	if _, err := surface.Switch(ctxT(t), b, "s9999"); codeOf(err) != apitype.SurfaceNotFound {
		t.Fatalf("never-seen id: want SURFACE_NOT_FOUND, got %v", err)
	}

	// A frame removed by script: a tombstone, also while active.
	fs, err := surface.Switch(ctxT(t), b, cross.ID)
	if err != nil {
		t.Fatal(err)
	}
	fref := ref(t, snap(t, fs), "button", "Press")
	if _, err := action.Click(ctxT(t), tab, ref(t, top, "button", "Remove cross"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the frame's tombstone", func() bool {
		_, err := b.Surface(ctxT(t), cross.ID)
		return codeOf(err) == apitype.SurfaceClosed
	})
	if _, err := b.Surface(ctxT(t), fs.ID); codeOf(err) != apitype.SurfaceClosed {
		t.Fatalf("a removed frame: want SURFACE_CLOSED, got %v", err)
	}
	if _, err := action.Click(ctxT(t), fs, fref, action.ClickOptions{}); err == nil {
		t.Fatal("click in a removed frame succeeded")
	}
	list = surfaceList(t, b)
	if slices.ContainsFunc(list, func(s surface.Surface) bool { return s.ID == cross.ID || s.ID == popup.ID }) {
		t.Fatalf("tombstoned surfaces still listed: %+v", list)
	}
}

func TestSurfaceEvents(t *testing.T) {
	t.Parallel()
	b, tab := openSurfaces(t)
	list := surfaceList(t, b)
	cross := oneByURL(t, list, "label=cross")
	nested := oneByURL(t, list, "label=nested")
	eventually(t, "the frames' fetches to be logged", func() bool {
		n := 0
		for _, r := range b.Events().Console("", false) {
			if strings.HasSuffix(r.Text, "fetched true") {
				n++
			}
		}
		return n == 2
	})
	wantConsole := map[string]string{"top loaded": tab.ID, "cross loaded": cross.ID, "nested loaded": nested.ID, "cross fetched true": cross.ID}
	for _, r := range b.Events().Console("", false) {
		if want, ok := wantConsole[r.Text]; ok {
			if r.SurfaceID != want {
				t.Errorf("console %q: surface %q, want %s", r.Text, r.SurfaceID, want)
			}
			delete(wantConsole, r.Text)
		}
	}
	if len(wantConsole) != 0 {
		t.Errorf("console messages missing: %v", wantConsole)
	}
	if got := b.Events().Console(cross.ID, false); len(got) != 2 {
		t.Errorf("console of %s only: %+v", cross.ID, got)
	}
	var sawFetch, sawDoc bool
	for _, r := range b.Events().Network("", false) {
		if strings.Contains(r.URL, "data.json?label=cross") {
			sawFetch = true
			if r.SurfaceID != cross.ID || r.Status != 200 || r.State != "done" || r.DurationMS <= 0 {
				t.Errorf("cross fetch record: %+v", r)
			}
		}
		if strings.HasSuffix(r.URL, "/surfaces/top.html") {
			sawDoc = true
			if r.SurfaceID != tab.ID || r.Type != "Document" || r.Status != 200 {
				t.Errorf("top document record: %+v", r)
			}
		}
	}
	if !sawFetch || !sawDoc {
		t.Errorf("network records missing (fetch %v, document %v): %+v", sawFetch, sawDoc, b.Events().Network("", false))
	}

	// Dialogs: answered at once by the policy, recorded with their frame's
	// surface.
	top := snap(t, tab)
	click := func(s *engine.Surface, snapOf *capture.Snapshot, name string) {
		t.Helper()
		if _, err := action.Click(ctxT(t), s, ref(t, snapOf, "button", name), action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitText := func(s *engine.Surface, text string) {
		t.Helper()
		if _, err := nav.Wait(ctxT(t), s, nav.WaitOptions{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	click(tab, top, "Confirm")
	waitText(tab, "confirm:false")
	b.Events().SetDialogPolicy(eventlog.DialogPolicy{Mode: "accept", PromptText: "loupe"})
	click(tab, top, "Prompt")
	waitText(tab, "prompt:loupe")
	cs, _ := b.Surface(ctxT(t), cross.ID)
	cSnap := snap(t, cs)
	click(cs, cSnap, "Ask")
	waitText(cs, "confirm:cross:true")
	d := b.Events().Dialogs()
	if len(d) != 3 {
		t.Fatalf("dialogs: %+v", d)
	}
	want := []eventlog.DialogRecord{
		{SurfaceID: tab.ID, Type: "confirm", Message: "sure?", Action: "dismissed"},
		{SurfaceID: tab.ID, Type: "prompt", Message: "name?", Action: "accepted", PromptText: "loupe"},
		{SurfaceID: cross.ID, Type: "confirm", Message: "from cross?", Action: "accepted"},
	}
	for i, w := range want {
		g := d[i]
		if g.SurfaceID != w.SurfaceID || g.Type != w.Type || g.Message != w.Message || g.Action != w.Action || g.PromptText != w.PromptText {
			t.Errorf("dialog %d: got %+v, want %+v", i, g, w)
		}
	}
}

// TestSurfaceBrowserStopLeavesNoProcess checks that closing a session whose
// browser had several windows, popups and out-of-process frames leaves no
// process of its group behind.
func TestSurfaceBrowserStopLeavesNoProcess(t *testing.T) {
	t.Parallel()
	b, tab := openSurfaces(t)
	top := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, top, "button", "Open popup"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the popup", func() bool { return b.TabCount() == 2 })
	pid := b.PID()
	if err := b.Close(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	// Chromium runs in its own process group (Setpgid): nothing of it may
	// still run (zombies wait for init, which reaps them in its own time).
	if chromium.GroupRunning(pid) {
		t.Fatalf("process group %d still has running processes", pid)
	}
	// The check itself can fail: the test binary's own group runs.
	if !chromium.GroupRunning(syscall.Getpgrp()) {
		t.Fatal("GroupRunning does not see this test's own process group")
	}
}

// Every page acts as focused (focus emulation): a tab behind another one
// still has focus, as a person's front tab does.
func TestSurfaceBackgroundTabKeepsFocus(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "basic.html")
	openTab(t, "")
	v, err := action.Eval(ctxT(t), tab, "document.hasFocus()")
	if err != nil || string(v) != "true" {
		t.Fatalf("a tab behind a new one: document.hasFocus() = %s %v, want true", v, err)
	}
}
