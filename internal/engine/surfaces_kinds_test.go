package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestSurfaceOriginInherited: a frame whose document inherits its parent's
// origin (about:blank, with or without src, and srcdoc) is same-origin,
// though Chromium computes its frame origin from the URL ("://"); a
// sandboxed srcdoc frame stays opaque.
func TestSurfaceOriginInherited(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "surfaces/inherit.html")
	want := map[string]string{
		"blank frame":     "same-origin",
		"empty frame":     "same-origin",
		"srcdoc frame":    "same-origin",
		"sandboxed frame": "opaque",
	}
	var frames []surface.Surface
	var got map[string]string
	eventually(t, "the four frames with their origin relations", func() bool {
		list := surface.List(ctxT(t), enginetest.Browser())
		frames = slices.DeleteFunc(list, func(s surface.Surface) bool { return s.ParentID != tab.ID })
		if len(frames) != 4 {
			return false
		}
		got = map[string]string{}
		for _, f := range frames {
			if f.OriginRelation == "" {
				return false
			}
			ft, err := enginetest.Browser().Surface(ctxT(t), f.ID)
			if err != nil {
				return false
			}
			text, err := action.Eval(ctxT(t), ft, "document.body.innerText.trim()")
			if err != nil {
				return false
			}
			got[strings.Trim(string(text), `"`)] = f.OriginRelation
		}
		return len(got) == 4
	})
	for title, rel := range want {
		if got[title] != rel {
			t.Errorf("%s: originRelation %q, want %q (all: %v; %+v)", title, got[title], rel, got, frames)
		}
	}
}

// TestSurfaceWebviewAfterItsHost: a webview guest whose page appeared
// before its host window's is listed after the host, in surfaces and in
// windows (Electron reports pages in no particular order when loupe
// attaches). Chromium with an Electron user agent stands in for the app,
// as in TestSurfaceKindsElectron.
func TestSurfaceWebviewAfterItsHost(t *testing.T) {
	t.Parallel()
	a := testpages.Start(t, "127.0.0.1")
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.Launch(ctxT(t), engine.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(t.TempDir(), "profile"),
		Args: []string{"--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) my-app/1.0.0 Chrome/156.0.0.0 Electron/40.0.0 Safari/537.36"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	guest, _ := b.Surface(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), guest, a.Page("frames/top.html")); err != nil {
		t.Fatal(err)
	}
	host, err := surface.NewTab(ctxT(t), b)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetClassifier(ctxT(t), func(context.Context) (map[string]engine.Classification, error) {
		return map[string]engine.Classification{
			host.TargetID:  {Kind: engine.KindWindow},
			guest.TargetID: {Kind: engine.KindWebview, ParentTargetID: host.TargetID},
		}, nil
	}); err != nil {
		t.Fatal(err)
	}
	list := surface.List(ctxT(t), b)
	seen := map[string]bool{}
	for _, s := range list {
		if s.ParentID != "" && !seen[s.ParentID] {
			t.Fatalf("%s listed before its parent %s: %+v", s.ID, s.ParentID, list)
		}
		seen[s.ID] = true
	}
	if len(list) < 3 || list[0].ID != host.ID || list[1].ID != guest.ID || list[1].ParentID != host.ID {
		t.Fatalf("want the host %s, then its webview %s and the webview's frames: %+v", host.ID, guest.ID, list)
	}
	ws := surface.Windows(ctxT(t), b)
	if len(ws) != 2 || ws[0].ID != host.ID || ws[1].ID != guest.ID {
		t.Fatalf("windows: want host %s then webview %s: %+v", host.ID, guest.ID, ws)
	}
}

// TestSurfaceKindsElectron checks how page kinds follow the transport's
// knowledge, on a real Chromium whose user agent says Electron (no Electron
// binary can be installed here): the endpoint alone gives other; a
// classifier (the Electron main process's metadata, see package electron)
// gives window, webcontents_view and webview with the host as parent, by
// target id; pages it does not name stay other and make it ask again.
func TestSurfaceKindsElectron(t *testing.T) {
	t.Parallel()
	a := testpages.Start(t, "127.0.0.1")
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.Launch(ctxT(t), engine.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(t.TempDir(), "profile"),
		Args: []string{"--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) my-app/1.0.0 Chrome/156.0.0.0 Electron/40.0.0 Safari/537.36"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	if !b.Electron() {
		t.Fatal("user agent with Electron/ not recognised")
	}
	host, _ := b.Surface(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), host, a.Page("frames/top.html")); err != nil {
		t.Fatal(err)
	}
	view, err := surface.NewTab(ctxT(t), b)
	if err != nil {
		t.Fatal(err)
	}
	guest, err := surface.NewTab(ctxT(t), b)
	if err != nil {
		t.Fatal(err)
	}
	kinds := func() map[string]surface.Surface {
		list := surface.List(ctxT(t), b)
		m := map[string]surface.Surface{}
		for _, s := range list {
			m[s.ID] = s
		}
		return m
	}
	for _, id := range []string{host.ID, view.ID, guest.ID} {
		if k := kinds()[id]; k.Kind != engine.KindOther || k.ParentID != "" {
			t.Fatalf("without the main process, %s must be other: %+v", id, k)
		}
	}
	if k := kinds(); k[host.ID].Kind != engine.KindOther || len(k) < 5 {
		t.Fatalf("frames of an Electron page are still frames: %+v", k)
	}
	calls := 0
	classify := func(ctx context.Context) (map[string]engine.Classification, error) {
		calls++
		return map[string]engine.Classification{
			host.TargetID:  {Kind: engine.KindWindow},
			view.TargetID:  {Kind: engine.KindWebContentsView},
			guest.TargetID: {Kind: engine.KindWebview, ParentTargetID: host.TargetID},
		}, nil
	}
	if err := b.SetClassifier(ctxT(t), classify); err != nil {
		t.Fatal(err)
	}
	k := kinds()
	if k[host.ID].Kind != engine.KindWindow || k[view.ID].Kind != engine.KindWebContentsView || k[guest.ID].Kind != engine.KindWebview || k[guest.ID].ParentID != host.ID {
		t.Fatalf("classified kinds: %+v", k)
	}
	if !status.Features(b)["electronClassification"] {
		t.Error("doctor must report electronClassification once a classifier is set")
	}
	// No real Electron app has passed the fixtures: surface targeting in
	// one is "unverified", not claimed.
	if status.Features(b)["surfaceTargeting"] || !slices.Equal(status.Unverified(b), []string{"surfaceTargeting"}) {
		t.Errorf("doctor on Electron: surfaceTargeting %v, unverified %v", status.Features(b)["surfaceTargeting"], status.Unverified(b))
	}
	// A page the classifier does not know: other, and one more question.
	before := calls
	late, err := surface.NewTab(ctxT(t), b)
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(); k[late.ID].Kind != engine.KindOther || calls != before+1 {
		t.Fatalf("unclassified page: %+v, classifier calls %d → %d", k[late.ID], before, calls)
	}
}
