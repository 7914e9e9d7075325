package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// fast bounds how long a crash may take to reach an operation: Chromium
// reports it within tens of milliseconds; without the engine noticing, the
// operation would wait for its caller's deadline (enginetest.StepTimeout). The
// bound is generous for a loaded machine, and well short of that deadline.
const fast = 5 * time.Second

// crashRecorder counts the crash handler's calls.
type crashRecorder struct {
	mu   sync.Mutex
	tabs []string
	ch   chan string
}

func (r *crashRecorder) handle(_ context.Context, t *engine.Surface) {
	r.mu.Lock()
	r.tabs = append(r.tabs, t.ID)
	r.mu.Unlock()
	r.ch <- t.ID
}

func (r *crashRecorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.tabs)
}

// crashBrowser launches a browser for one test with a crash handler, and
// opens the surfaces fixture (an OOPIF included) in its tab.
func crashBrowser(t *testing.T) (*engine.Browser, *engine.Surface, *crashRecorder) {
	t.Helper()
	bin, err := chromium.Find("", true)
	if err != nil {
		t.Fatal(err)
	}
	rec := &crashRecorder{ch: make(chan string, 8)}
	b, err := engine.Launch(ctxT(t), engine.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(t.TempDir(), "profile")},
		engine.WithCrashHandler(rec.handle))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	a, _ := startPair(t)
	tab, err := b.Surface(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("surfaces/top.html")); err != nil {
		t.Fatal(err)
	}
	settled(t, b)
	return b, tab, rec
}

// crash makes the tab's renderer crash (Page.crash, which never replies)
// and returns how long the call took to fail.
func crash(t *testing.T, s engine.Session) time.Duration {
	t.Helper()
	start := time.Now()
	err := s.Call(ctxT(t), "Page.crash", nil, nil)
	took := time.Since(start)
	if err == nil {
		t.Fatal("Page.crash replied")
	}
	if !errors.Is(err, engine.ErrTabCrashed) && !errors.Is(err, engine.ErrFrameCrashed) {
		t.Fatalf("Page.crash: want a crash error, got %v", err)
	}
	if took > fast {
		t.Fatalf("Page.crash took %v to fail", took)
	}
	t.Logf("Page.crash failed with the crash after %v", took)
	return took
}

// holding waits until an operation started on its own goroutine holds the
// tab's lock (a bounded poll: nothing signals it), failing if it ends
// first.
func holding(t *testing.T, tab *engine.Surface, done chan error) {
	t.Helper()
	eventually(t, "the operation to hold the tab", func() bool {
		select {
		case err := <-done:
			t.Fatalf("the operation ended early: %v", err)
		default:
		}
		if tab.TryLockForTest() {
			tab.ReleaseForTest()
			return false
		}
		return true
	})
}

func wantCrashErr(t *testing.T, what string, start time.Time, err error) {
	t.Helper()
	if !errors.Is(err, engine.ErrTabCrashed) {
		t.Fatalf("%s on a crashed tab: want ErrTabCrashed, got %v", what, err)
	}
	if took := time.Since(start); took > fast {
		t.Fatalf("%s took %v to fail", what, took)
	}
}

func TestCrashDetectedListedAndRecovered(t *testing.T) {
	t.Parallel()
	b, tab, rec := crashBrowser(t)
	url := tab.URL()
	before := surfaceList(t, b)
	var frames []string
	for _, s := range before[1:] {
		frames = append(frames, s.ID)
	}
	fs, err := b.Surface(ctxT(t), frames[0])
	if err != nil {
		t.Fatal(err)
	}
	if tab.IsCrashed() || fs.IsCrashed() {
		t.Fatal("crashed before the crash")
	}
	crashed, fsCrashed := tab.Crashed(), fs.Crashed()
	crash(t, tab.Session())
	select {
	case <-crashed:
	case <-time.After(fast):
		t.Fatal("Crashed() did not close")
	}
	if !tab.IsCrashed() {
		t.Fatal("IsCrashed is false after the crash")
	}
	// Frame surfaces share the page's crash.
	select {
	case <-fsCrashed:
	default:
		t.Fatal("a frame surface's Crashed() is open after its page crashed")
	}
	if !fs.IsCrashed() {
		t.Fatal("a frame surface of the page does not share its crash")
	}
	select {
	case id := <-rec.ch:
		if id != tab.ID {
			t.Fatalf("handler called for %s, want %s", id, tab.ID)
		}
	case <-time.After(fast):
		t.Fatal("crash handler not called")
	}

	// The listing shows the tab crashed, its frames gone.
	list := surfaceList(t, b)
	if len(list) != 1 || list[0].ID != tab.ID || !list[0].Crashed || list[0].Capabilities.Snapshot || list[0].URL != url {
		t.Fatalf("surfaces after the crash: want only %s, crashed, at %s: %+v", tab.ID, url, list)
	}
	if tabs := surface.Tabs(ctxT(t), b); len(tabs) != 1 || !tabs[0].Crashed {
		t.Fatalf("tabs after the crash: %+v", tabs)
	}
	for _, id := range frames {
		if _, err := b.Surface(ctxT(t), id); codeOf(err) != apitype.SurfaceClosed {
			t.Fatalf("frame surface %s of the crashed page: want SURFACE_CLOSED, got %v", id, err)
		}
	}

	got, err := tab.RecoverCrash(ctxT(t))
	if err != nil || got != url {
		t.Fatalf("RecoverCrash: %q, %v; want %q", got, err, url)
	}
	if tab.IsCrashed() {
		t.Fatal("still crashed after RecoverCrash")
	}
	select {
	case <-tab.Crashed():
		t.Fatal("Crashed() of the new incarnation is closed")
	default:
	}
	settled(t, b)
	list = surfaceList(t, b)
	if list[0].ID != tab.ID || list[0].Crashed {
		t.Fatalf("tab after recovery: %+v", list[0])
	}
	for _, s := range list[1:] {
		if slices.Contains(frames, s.ID) {
			t.Fatalf("frame surface id %s reissued after the crash: before %v, now %+v", s.ID, frames, list)
		}
	}
	if s := snap(t, tab); !strings.Contains(s.Text, "Surfaces top") {
		t.Fatalf("snapshot after recovery:\n%s", s.Text)
	}
	if n := len(rec.calls()); n != 1 {
		t.Fatalf("crash handler called %d times, want once", n)
	}
	// A second crash is a new one: heard again.
	crash(t, tab.Session())
	select {
	case <-rec.ch:
	case <-time.After(fast):
		t.Fatal("crash handler not called for the second crash")
	}
}

// The next four tests crash the renderer of a tab of the shared browser
// and are not parallel: Chromium may put other tabs' frames of the same
// site into that renderer, and no test may lose them to another's crash.

func TestCrashFailsOperationsFast(t *testing.T) {
	tab := openTab(t, "surfaces/leaf.html?label=solo")
	s := snap(t, tab)
	press := ref(t, s, "button", "Press")

	// An operation in flight when the crash comes: it holds the tab's
	// lock, waiting for a promise that never settles.
	done := make(chan error, 1)
	go func() {
		_, err := action.Eval(ctxT(t), tab, "await new Promise(() => {})")
		done <- err
	}()
	// The eval is under way once its call is on the wire; it holds the
	// lock until it returns. Bounded poll: nothing signals it.
	holding(t, tab, done)
	crashAt := time.Now()
	crash(t, tab.Session())
	select {
	case err := <-done:
		wantCrashErr(t, "the eval in flight", crashAt, err)
	case <-time.After(fast):
		t.Fatal("the eval in flight did not fail")
	}

	// Operations started afterwards fail at once.
	ops := []struct {
		name string
		do   func(ctx context.Context) error
	}{
		{"snapshot", func(ctx context.Context) error {
			_, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
			return err
		}},
		{"eval", func(ctx context.Context) error { _, err := action.Eval(ctx, tab, "1"); return err }},
		{"click", func(ctx context.Context) error {
			_, err := action.Click(ctx, tab, press, action.ClickOptions{})
			return err
		}},
		{"text", func(ctx context.Context) error { _, err := action.PageText(ctx, tab); return err }},
		{"screenshot", func(ctx context.Context) error {
			_, err := action.Screenshot(ctx, tab, action.ScreenshotOptions{})
			return err
		}},
		{"navigate", func(ctx context.Context) error { _, err := nav.Navigate(ctx, tab, tab.URL()); return err }},
		{"wait", func(ctx context.Context) error {
			_, err := nav.Wait(ctx, tab, nav.WaitOptions{Text: "never there"})
			return err
		}},
	}
	for _, op := range ops {
		start := time.Now()
		wantCrashErr(t, op.name, start, op.do(ctxT(t)))
	}
	if !tab.IsCrashed() {
		t.Fatal("not crashed")
	}
}

func TestCrashOldRefsStale(t *testing.T) {
	for _, how := range []string{"RecoverCrash", "a reload by hand"} {
		t.Run(how, func(t *testing.T) {
			tab := openTab(t, "surfaces/leaf.html?label=solo")
			id, url := tab.ID, tab.URL()
			press := ref(t, snap(t, tab), "button", "Press")
			crash(t, tab.Session())
			if how == "RecoverCrash" {
				if got, err := tab.RecoverCrash(ctxT(t)); err != nil || got != url {
					t.Fatalf("RecoverCrash: %q, %v", got, err)
				}
			} else {
				// As a person reloading the sad tab would: the engine's
				// crash gate is bypassed, and no ref is forgotten by
				// RecoverCrash.
				if err := tab.Session().Session.Call(ctxT(t), "Page.navigate", map[string]string{"url": url}, nil); err != nil {
					t.Fatal(err)
				}
				eventually(t, "the reload to commit", func() bool { return !tab.IsCrashed() })
			}
			if tab.ID != id {
				t.Fatalf("tab id changed: %s → %s", id, tab.ID)
			}
			// A fresh snapshot binds the reloaded document's elements,
			// numbered by its new agent from the start again.
			s := snap(t, tab)
			if !strings.Contains(s.Text, "solo idle") {
				t.Fatalf("snapshot after recovery:\n%s", s.Text)
			}
			fresh := ref(t, s, "button", "Press")
			if fresh == press {
				t.Fatalf("the new document's button got the old ref %s", press)
			}
			_, err := action.Click(ctxT(t), tab, press, action.ClickOptions{})
			if codeOf(err) != apitype.StaleRef {
				t.Fatalf("old ref after the crash: want STALE_REF, got %v", err)
			}
			if txt, _ := action.PageText(ctxT(t), tab); !strings.Contains(txt, "solo idle") {
				t.Fatalf("the old ref acted on the reloaded page: %q", txt)
			}
			if _, err := action.Click(ctxT(t), tab, fresh, action.ClickOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := nav.Wait(ctxT(t), tab, nav.WaitOptions{Text: "pressed:solo:true"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCrashRecoverWaitsForTheLock(t *testing.T) {
	tab := openTab(t, "surfaces/leaf.html?label=solo")
	done := make(chan error, 1)
	go func() {
		_, err := action.Eval(ctxT(t), tab, "await new Promise(() => {})")
		done <- err
	}()
	holding(t, tab, done)
	// Recovery called while the eval holds the lock, as a crash handler
	// would be: the crash frees the lock, then the page reloads.
	rec := make(chan error, 1)
	go func() {
		<-tab.Crashed()
		_, err := tab.RecoverCrash(ctxT(t))
		rec <- err
	}()
	crash(t, tab.Session())
	if err := <-done; !errors.Is(err, engine.ErrTabCrashed) {
		t.Fatalf("eval: %v", err)
	}
	if err := <-rec; err != nil {
		t.Fatal(err)
	}
	if got, err := action.Eval(ctxT(t), tab, "location.href"); err != nil || string(got) != `"`+tab.URL()+`"` {
		t.Fatalf("eval after recovery: %s %v", got, err)
	}
	// Not crashed: nothing to do.
	if got, err := tab.RecoverCrash(ctxT(t)); err != nil || got != tab.URL() {
		t.Fatalf("RecoverCrash of a live tab: %q %v", got, err)
	}
}

func TestCrashViaChromeCrashURL(t *testing.T) {
	tab := openTab(t, "surfaces/leaf.html?label=solo")
	url := tab.URL()
	// Nothing commits at chrome://crash: the navigation is aborted, and
	// the renderer dies.
	_, _ = nav.Navigate(ctxT(t), tab, "chrome://crash")
	select {
	case <-tab.Crashed():
	case <-time.After(5 * time.Second):
		t.Fatal("no crash after chrome://crash")
	}
	if got, err := tab.RecoverCrash(ctxT(t)); err != nil || got != url {
		t.Fatalf("RecoverCrash: %q, %v; want the last page %s", got, err, url)
	}
}

func TestCrashSafeURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:8/a?b#c":      "http://127.0.0.1:8/a?b#c",
		"HTTPS://example.com/":          "HTTPS://example.com/",
		"file:///tmp/x.html":            "file:///tmp/x.html",
		"chrome://crash":                "about:blank",
		"chrome-error://chromewebdata/": "about:blank",
		"javascript:alert(1)":           "about:blank",
		"data:text/html,x":              "about:blank",
		"":                              "about:blank",
		"about:blank":                   "about:blank",
	} {
		if got := engine.SafeURL(in); got != want {
			t.Errorf("SafeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCrashOfAnOOPIF(t *testing.T) {
	t.Parallel()
	b, tab, rec := crashBrowser(t)
	list := surfaceList(t, b)
	cross := oneByURL(t, list, "label=cross")
	nested := oneByURL(t, list, "label=nested")
	mid := oneByURL(t, list, "/surfaces/mid.html")
	fs, err := b.Surface(ctxT(t), cross.ID)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := tab.Frame(fs.Root())
	if !ok || f.Session == tab.Session() {
		t.Fatalf("the cross frame is not out of process: %+v", f)
	}
	done := make(chan error, 1)
	go func() {
		_, err := action.Eval(ctxT(t), fs, "await new Promise(() => {})")
		done <- err
	}()
	holding(t, tab, done)
	crashAt := time.Now()
	crash(t, f.Session)
	select {
	case err := <-done:
		if !errors.Is(err, engine.ErrFrameCrashed) || !errors.Is(err, engine.ErrDocumentGone) || errors.Is(err, engine.ErrTabCrashed) {
			t.Fatalf("eval in the crashed frame: want ErrFrameCrashed, got %v", err)
		}
		if took := time.Since(crashAt); took > fast {
			t.Fatalf("eval in the crashed frame took %v", took)
		}
	case <-time.After(fast):
		t.Fatal("the eval in the crashed frame did not fail")
	}
	// The page lives on; the frames of the crashed process are gone (the
	// nested frame is of the same site, so of the same process).
	if tab.IsCrashed() {
		t.Fatal("an OOPIF crash crashed the tab")
	}
	list = surfaceList(t, b)
	for _, gone := range []string{cross.ID, nested.ID} {
		if slices.ContainsFunc(list, func(s surface.Surface) bool { return s.ID == gone }) {
			t.Fatalf("surface %s of the crashed frame still listed: %+v", gone, list)
		}
		if _, err := b.Surface(ctxT(t), gone); codeOf(err) != apitype.SurfaceClosed {
			t.Fatalf("surface %s of the crashed frame: want SURFACE_CLOSED, got %v", gone, err)
		}
	}
	if !slices.ContainsFunc(list, func(s surface.Surface) bool { return s.ID == mid.ID && !s.Crashed }) {
		t.Fatalf("the in-process frame is gone: %+v", list)
	}
	if s := snap(t, tab); !strings.Contains(s.Text, "Surfaces top") || strings.Contains(s.Text, "cross idle") {
		t.Fatalf("snapshot of the page after its OOPIF crashed:\n%s", s.Text)
	}
	if got, err := action.Eval(ctxT(t), tab, "document.title"); err != nil || string(got) != `"surfaces top"` {
		t.Fatalf("eval in the page: %s %v", got, err)
	}
	if n := len(rec.calls()); n != 0 {
		t.Fatalf("crash handler called %d times for an OOPIF crash", n)
	}
	// Reloading the page brings new frames, with new ids.
	if _, err := nav.Reload(ctxT(t), tab); err != nil {
		t.Fatal(err)
	}
	settled(t, b)
	if got := oneByURL(t, surfaceList(t, b), "label=cross"); got.ID == cross.ID {
		t.Fatalf("the reloaded cross frame got the old id %s", got.ID)
	}
}
