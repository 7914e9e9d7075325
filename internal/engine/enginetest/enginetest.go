// Package enginetest is what the engine's behaviour tests share: a browser
// for the whole test binary, fresh tabs at fixture pages, snapshots and
// refs by role and name, and error checks. The engine's packages test one
// layer each, but every layer needs a real Chromium (LOUPE_CHROMIUM, or
// /usr/bin/chromium) and the pages of package testpages to do it.
package enginetest

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"go.uber.org/goleak"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// One browser and one fixture server serve a whole test binary; each test
// opens its own tab. The browser is launched by the first test that asks
// for it: a package whose tests each launch their own pays for none.
var (
	server    *httptest.Server
	profile   string // the shared browser's profile directory
	launch    sync.Once
	browser   *engine.Browser
	launchErr error
)

// parallel is how many tests run at once unless -test.parallel says. The
// default, GOMAXPROCS, fits tests that keep a CPU busy; these mostly wait
// for Chromium (another process) to load, lay out and answer, so on a
// small machine a few more at a time finish sooner.
const parallel = 4

// Main runs a package's tests with the shared browser and fixture server,
// and returns the exit code: func TestMain(m *testing.M) {
// os.Exit(enginetest.Main(m)) }. Once they pass and the browser has
// closed, it fails them if any goroutine is left (goleak): every one the
// engine starts has an owner that stops it.
func Main(m *testing.M) int {
	code := run(m)
	if code != 0 {
		return code
	}
	if err := goleak.Find(); err != nil {
		println("goroutines left after the tests and the browser closed:", err.Error())
		return 1
	}
	return 0
}

func run(m *testing.M) int {
	if _, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true); err != nil {
		println("engine tests need Chromium (make chromium installs it):", err.Error())
		return 1
	}
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < parallel {
		_ = flag.Set("test.parallel", strconv.Itoa(parallel))
	}
	dir, err := os.MkdirTemp("", "loupe-engine-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	profile = filepath.Join(dir, "s", "profile")
	server = httptest.NewServer(testpages.Handler())
	defer server.Close()
	defer func() {
		if browser != nil {
			_ = browser.Close(context.Background())
		}
	}()
	return m.Run()
}

// Browser is the shared browser, launched on first use (nil outside
// Main). A browser that cannot start ends the test binary: no test of the
// package can run without it.
func Browser() *engine.Browser {
	launch.Do(func() {
		if profile == "" {
			return
		}
		bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), StepTimeout)
			defer cancel()
			browser, err = engine.Launch(ctx, engine.LaunchOptions{Binary: bin, ProfileDir: profile})
		}
		launchErr = err
	})
	if launchErr != nil {
		panic("enginetest: launch of the shared browser: " + launchErr.Error())
	}
	return browser
}

// URL is the shared fixture server's origin.
func URL() string { return server.URL }

// Page is the URL of a fixture page on the shared server.
func Page(page string) string { return server.URL + "/" + page }

// pairs numbers the fixture pairs of this test binary.
var pairs atomic.Int32

// StartPair serves the fixture pages as testpages.StartPair does, A on
// 127.0.0.1, but B on a loopback address of its own (127.1.x.y): a
// browser puts the cross-site frames of one site from all its tabs into
// one renderer, and a test's frames must not wait behind (or hang, or
// crash with) another test's.
func StartPair(t testing.TB) (a, b *testpages.Server) {
	t.Helper()
	n := pairs.Add(1)
	s := testpages.StartHosts(t, "127.0.0.1", fmt.Sprintf("127.1.%d.%d", n/250, n%250+1))
	return s[0], s[1]
}

// StepTimeout bounds one step of a test (Ctx). It detects a hang; it
// does not measure speed: a step that takes well under a second alone
// takes tens of seconds on a machine loaded far beyond its cores (an
// action that waits 30 animation frames, when a frame takes a second).
const StepTimeout = time.Minute

// LongStepTimeout bounds a step that is hundreds of calls, or the load or
// walk of a page of tens of thousands of elements (LongCtx): seconds
// alone, minutes on a loaded machine.
const LongStepTimeout = 3 * time.Minute

// OpenTab opens a fresh tab in the shared browser at a fixture page (or at
// a URL, or blank for ""), waits for it to load, and closes it after the
// test.
func OpenTab(t testing.TB, page string) *engine.Surface {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), StepTimeout)
	defer cancel()
	b := Browser()
	tab, err := surface.NewTab(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = surface.CloseTab(ctx, b, tab.ID)
	})
	if page != "" {
		Goto(t, tab, page)
	}
	return tab
}

// Goto loads a fixture page (or a URL) in an open tab and waits for it to
// load. A test that reads many pages one after another goes from page to
// page in one tab: a new tab costs a renderer process of its own.
func Goto(t testing.TB, tab *engine.Surface, page string) {
	t.Helper()
	url := page
	if !strings.Contains(page, "://") {
		url = Page(page)
	}
	if _, err := nav.Navigate(Ctx(t), tab, url); err != nil {
		t.Fatal(err)
	}
}

// OwnBrowser launches a browser for one test, so its surface list holds
// only what the test made; opts are the engine's options for it.
func OwnBrowser(t testing.TB, opts ...engine.Option) *engine.Browser {
	t.Helper()
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.Launch(Ctx(t), engine.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(t.TempDir(), "profile")}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

// Ctx is a context for one step of a test (StepTimeout), ended with the
// test.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), StepTimeout)
	t.Cleanup(cancel)
	return ctx
}

// LongCtx is a context for one long step of a test (LongStepTimeout),
// ended with the test.
func LongCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), LongStepTimeout)
	t.Cleanup(cancel)
	return ctx
}

// WithTimeout bounds ctx to d; it is released when the parent ends.
func WithTimeout(ctx context.Context, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	_ = cancel // released when the parent test context ends
	return ctx
}

// Eventually polls cond until it holds (bounded, 30 s: these changes take
// milliseconds alone, seconds on a loaded machine). It is for registry
// changes that follow browser events with no reply to wait on (a popup
// closing itself, a frame removed by script): the test cannot know which
// reply those events precede.
func Eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Snap takes a default snapshot of the surface.
func Snap(t testing.TB, tab *engine.Surface) *capture.Snapshot {
	t.Helper()
	return SnapWith(t, tab, capture.SnapshotOptions{})
}

// SnapWith takes a snapshot of the surface with options.
func SnapWith(t testing.TB, tab *engine.Surface, o capture.SnapshotOptions) *capture.Snapshot {
	t.Helper()
	s, err := capture.Take(Ctx(t), tab, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Ref returns the ref of the only node with that role and name.
func Ref(t testing.TB, s *capture.Snapshot, role, name string) string {
	t.Helper()
	var found []string
	for _, r := range s.Refs {
		if r.Role == role && r.Name == name {
			found = append(found, r.Ref)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %q in snapshot, found %v:\n%s", role, name, found, s.Text)
	}
	return found[0]
}

// RefsByFrame returns the refs with that role and name, keyed by frame id
// ("" for the top document).
func RefsByFrame(s *capture.Snapshot, role, name string) map[string]string {
	out := map[string]string{}
	for _, r := range s.Refs {
		if r.Role == role && r.Name == name {
			out[r.FrameID] = r.Ref
		}
	}
	return out
}

// FrameIDs finds want refs with that role and name, one per frame: the top
// document's, the subframes' ids, and all of them by frame.
func FrameIDs(t *testing.T, s *capture.Snapshot, role, name string, want int) (top string, subs []string, byFrame map[string]string) {
	t.Helper()
	byFrame = RefsByFrame(s, role, name)
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

// EvalString evaluates an expression whose value is a string in the page.
func EvalString(t *testing.T, tab *engine.Surface, expr string) string {
	t.Helper()
	v, err := action.Eval(Ctx(t), tab, expr)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := jsonv2.Unmarshal(v, &s); err != nil {
		t.Fatalf("eval %s: %s is not a string", expr, v)
	}
	return s
}

// CLIWords matches what no engine error may say: a loupe command or a
// command-line flag. The engine returns recovery steps (apitype.Step) and
// each front end writes them in its own terms.
var CLIWords = regexp.MustCompile(`loupe |--[a-z]`)

// CheckNoCLI fails the test if the error's message or hint names a loupe
// command or a command-line flag.
func CheckNoCLI(t testing.TB, err error) {
	t.Helper()
	e, ok := apitype.As(err)
	if !ok {
		return
	}
	for _, s := range []string{e.Message, e.Hint} {
		if CLIWords.MatchString(s) {
			t.Errorf("engine error in a front end's terms: %q (%s)", s, e.Code)
		}
	}
}

// WantCode fails the test unless err is a registry error with that code,
// and returns it. Its message and hint must name no command line.
func WantCode(t testing.TB, err error, code apitype.Code) *apitype.Error {
	t.Helper()
	e, ok := apitype.As(err)
	if !ok || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	CheckNoCLI(t, err)
	return e
}

// CodeOf is the registry code of err ("" when it has none).
func CodeOf(err error) apitype.Code {
	if e, ok := apitype.As(err); ok {
		return e.Code
	}
	return ""
}

// OOPIF is the tab's (only) out-of-process frame.
func OOPIF(t *testing.T, tab *engine.Surface) *engine.FrameInfo {
	t.Helper()
	var found *engine.FrameInfo
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		for _, c := range tab.ChildFrames(id) {
			if f, ok := tab.Frame(c); ok && f.Session != tab.Session() {
				found = &f
			}
			if depth < 16 {
				walk(c, depth+1)
			}
		}
	}
	walk(tab.Root(), 0)
	if found == nil {
		t.Fatal("no out-of-process frame")
	}
	return found
}

var refOnLine = regexp.MustCompile(`\[ref=(e\d+)\]`)

// RefOfLine returns the ref printed on a snapshot line, or "".
func RefOfLine(l string) string {
	m := refOnLine.FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	return m[1]
}

// WantStep fails the test unless err is a registry error whose recovery
// holds that step, and names no command line.
func WantStep(t testing.TB, err error, step apitype.Step) {
	t.Helper()
	e, ok := apitype.As(err)
	if !ok {
		t.Fatalf("want an error with recovery %+v, got %v", step, err)
	}
	CheckNoCLI(t, err)
	for _, s := range e.Recovery {
		if s.Op == step.Op && maps.Equal(s.Args, step.Args) {
			return
		}
	}
	t.Fatalf("%s: want recovery %+v, got %+v (hint %q)", e.Code, step, e.Recovery, e.Hint)
}

// Hold takes the surface's operation turn (engine.Surface.Exclusive) for
// a test that works on the engine's state the way an operation does, and
// returns the function that gives it back; the test ends it at the latest.
func Hold(t testing.TB, tab *engine.Surface) (release func()) {
	t.Helper()
	held, done, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		_ = tab.Exclusive(Ctx(t), func() error {
			close(held)
			<-done
			return nil
		})
	}()
	select {
	case <-held:
	case <-ended:
		t.Fatalf("the surface's operation turn did not come within %v", StepTimeout)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(done)
			<-ended
		})
	}
	t.Cleanup(release)
	return release
}

// FrameClick clicks a ref in an out-of-process frame, once more when the
// first click is reported as misrouted: under a loaded machine's lag the
// browser can send a press to the frame's embedder while the frame has
// just come into view (the engine then reports NOT_ACTIONABLE, "saw no
// press", and the frame saw no click). The second click must land.
func FrameClick(t testing.TB, tab *engine.Surface, ref string, o action.ClickOptions) (*action.Result, error) {
	t.Helper()
	r, err := action.Click(Ctx(t), tab, ref, o)
	if r != nil && r.Note != "" {
		t.Logf("click %s: %s", ref, r.Note) // why a page may not have seen it
	}
	if e, ok := apitype.As(err); ok && e.Code == apitype.NotActionable && strings.Contains(e.Message, "saw no press") {
		t.Logf("a click into a frame was misrouted under load (%v); clicking again", err)
		return action.Click(Ctx(t), tab, ref, o)
	}
	return r, err
}
