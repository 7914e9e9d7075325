package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestSurfaceParentFirstOrder(t *testing.T) {
	type item struct{ id, parent string }
	key := func(i item) (string, string) { return i.id, i.parent }
	ids := func(l []item) string {
		var s []string
		for _, i := range l {
			s = append(s, i.id)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name string
		in   []item
		want string
	}{
		{"empty", nil, ""},
		{"already parent-first keeps its order",
			[]item{{"s1", ""}, {"s3", "s1"}, {"s4", "s3"}, {"s2", ""}, {"s5", "s2"}},
			"s1 s3 s4 s2 s5"},
		// A webview guest that appeared before its host window, with a
		// frame of its own: the guest and its frame move under the host.
		{"webview listed before its host",
			[]item{{"s2", "s1"}, {"s5", "s2"}, {"s1", ""}, {"s3", "s1"}},
			"s1 s2 s5 s3"},
		{"parent not in the list is a root",
			[]item{{"s7", "s9"}, {"s1", ""}},
			"s7 s1"},
		{"deep chain listed backwards",
			[]item{{"s4", "s3"}, {"s3", "s2"}, {"s2", "s1"}, {"s1", ""}},
			"s1 s2 s3 s4"},
		{"a cycle keeps every item",
			[]item{{"s1", ""}, {"s2", "s3"}, {"s3", "s2"}, {"s4", "s2"}},
			"s1 s2 s3 s4"},
		{"own parent",
			[]item{{"s1", "s1"}},
			"s1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := parentFirst(c.in, key)
			if ids(got) != c.want {
				t.Fatalf("got %q, want %q", ids(got), c.want)
			}
			if len(got) != len(c.in) {
				t.Fatalf("lost items: %v", got)
			}
		})
	}
}

// TestSurfaceOriginInherited: a frame whose document inherits its parent's
// origin (about:blank, with or without src, and srcdoc) is same-origin,
// though Chromium computes its frame origin from the URL ("://"); a
// sandboxed srcdoc frame stays opaque.
func TestSurfaceOriginInherited(t *testing.T) {
	tab := openTab(t, "surfaces/inherit.html")
	want := map[string]string{
		"blank frame":     "same-origin",
		"empty frame":     "same-origin",
		"srcdoc frame":    "same-origin",
		"sandboxed frame": "opaque",
	}
	var frames []Surface
	var got map[string]string
	eventually(t, "the four frames with their origin relations", func() bool {
		_, list := testBrowser.Surfaces(ctxT(t))
		frames = slices.DeleteFunc(list, func(s Surface) bool { return s.ParentID != tab.ID })
		if len(frames) != 4 {
			return false
		}
		got = map[string]string{}
		for _, f := range frames {
			if f.OriginRelation == "" {
				return false
			}
			ft, err := testBrowser.Tab(ctxT(t), f.ID)
			if err != nil {
				return false
			}
			text, err := ft.Eval(ctxT(t), "document.body.innerText.trim()")
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
	a := testpages.Start(t, "127.0.0.1")
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Launch(ctxT(t), LaunchOptions{Binary: bin, ProfileDir: filepath.Join(t.TempDir(), "profile"),
		Args: []string{"--user-agent=Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) my-app/1.0.0 Chrome/156.0.0.0 Electron/40.0.0 Safari/537.36"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	guest, _ := b.Tab(ctxT(t), "")
	if _, err := guest.Navigate(ctxT(t), a.Page("frames/top.html")); err != nil {
		t.Fatal(err)
	}
	host, err := b.NewTab(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetClassifier(ctxT(t), func(context.Context) (map[string]Classification, error) {
		return map[string]Classification{
			host.TargetID:  {Kind: KindWindow},
			guest.TargetID: {Kind: KindWebview, ParentTargetID: host.TargetID},
		}, nil
	}); err != nil {
		t.Fatal(err)
	}
	_, list := b.Surfaces(ctxT(t))
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
	ws := b.Windows(ctxT(t))
	if len(ws) != 2 || ws[0].ID != host.ID || ws[1].ID != guest.ID {
		t.Fatalf("windows: want host %s then webview %s: %+v", host.ID, guest.ID, ws)
	}
}
