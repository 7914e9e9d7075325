package action_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
)

func TestDragHTML5AndPointer(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "drag.html")
	s := snap(t, tab)
	// HTML5 drag and drop: the page's drop handler sees the data its
	// dragstart set, and a trusted event.
	if _, err := action.Drag(ctxT(t), tab, "#item2", ref(t, s, "region", "Drop zone")); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(ctxT(t), tab, nav.WaitOptions{Text: "dropped:item2:true"}); err != nil {
		t.Fatal(err)
	}
	// A pointer drag: the slider follows several mouse moves to the mark.
	if _, err := action.Drag(ctxT(t), tab, ref(t, s, "slider", "Volume"), ref(t, s, "button", "Mark")); err != nil {
		t.Fatal(err)
	}
	txt, _ := action.PageText(ctxT(t), tab)
	if !strings.Contains(txt, "slider:245:moves>2=true") {
		t.Fatalf("pointer drag did not move the slider to the mark: %q", txt)
	}
	// A bad target changes nothing.
	_, err := action.Drag(ctxT(t), tab, ref(t, s, "slider", "Volume"), "e999999")
	if e, ok := apitype.As(err); !ok || e.Code != apitype.RefNotFound || !e.NotExecuted {
		t.Fatalf("drag to a ref never issued: %v", err)
	}
}

// TestNoSecondClickWhileNavigating: a form posts to a slow server; a second
// click on Pay while the first submit's navigation is in flight is refused
// (STALE_REF, not executed), and the server sees one payment.
func TestNoSecondClickWhileNavigating(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Method == http.MethodPost {
			posts.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
			}
			fmt.Fprint(w, `<p>paid</p>`)
			return
		}
		fmt.Fprint(w, `<form method="post" action="/pay"><button>Pay</button></form>`)
	}))
	defer srv.Close()
	defer close(release)
	tab := openTab(t, srv.URL+"/")
	pay := ref(t, snap(t, tab), "button", "Pay")
	if _, err := action.Click(ctxT(t), tab, pay, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	// The POST has reached the server, so the navigation has started.
	eventually(t, "the first POST", func() bool { return posts.Load() == 1 })
	_, err := action.Click(ctxT(t), tab, pay, action.ClickOptions{})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.StaleRef || !e.NotExecuted || !strings.Contains(e.Message, "navigating") {
		t.Fatalf("second click during the navigation: %v", err)
	}
	wantStep(t, err, apitype.Step{Op: "wait", Args: map[string]string{"load": "true"}})
	if n := posts.Load(); n != 1 {
		t.Fatalf("server saw %d payments", n)
	}
}

// TestEvalThatNeverYieldsIsStopped: a script that never yields ends with
// its deadline, and the tab works on: it is stopped, not left spinning.
func TestEvalThatNeverYieldsIsStopped(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "basic.html")
	ctx, cancel := context.WithTimeout(ctxT(t), 500*time.Millisecond)
	defer cancel()
	if _, err := action.Eval(ctx, tab, "while (true) {}"); err == nil {
		t.Fatal("an endless script returned")
	}
	v, err := action.Eval(ctxT(t), tab, "document.title")
	if err != nil || string(v) == "" {
		t.Fatalf("the tab after: %s %v", v, err)
	}
	if s := snap(t, tab); !strings.Contains(s.Text, "surface ") {
		t.Fatalf("snapshot after: %s", s.Text)
	}
}

// TestEvalValuesJSONCannotCarry: whatever the expression returns comes
// back as JSON, once evaluated: a value JSON cannot carry as a readable
// stand-in, a returned promise awaited, never an INTERNAL error.
func TestEvalValuesJSONCannotCarry(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "basic.html")
	for expr, want := range map[string]string{
		`Symbol("s")`: `"Symbol(s)"`,
		`window`:      `"[window]"`,
		`(() => { const a = {b: [1]}; a.a = a; return a })()`: `{"b":[1],"a":"[circular]"}`,
		`document.body`:                                  `"[body]"`,
		`() => 1`:                                        `"[function anonymous]"`,
		`new Map([[1, {x: 2}]])`:                         `{"1":{"x":2}}`,
		`new Set([1, 2])`:                                `[1,2]`,
		`new Date(0)`:                                    `"1970-01-01T00:00:00.000Z"`,
		`[1, undefined, NaN, -0, 2n]`:                    `[1,null,"NaN","-0","2n"]`,
		`({get x() { throw 1 }, y: 1})`:                  `{"x":"[threw]","y":1}`,
		`Promise.resolve({ok: true})`:                    `{"ok":true}`,
		`new Promise((r) => setTimeout(() => r(5), 10))`: `5`,
		`undefined`:                                      `null`,
		`"s"`:                                            `"s"`,
	} {
		got, err := action.Eval(ctxT(t), tab, expr)
		if err != nil || string(got) != want {
			t.Errorf("eval %s: %s %v, want %s", expr, got, err, want)
		}
	}
	// The expression ran once: its side effect happened once.
	if got, _ := action.Eval(ctxT(t), tab, `window.__n = (window.__n || 0) + 1; ({n: window.__n, self: window})`); string(got) != `{"n":1,"self":"[window]"}` {
		t.Errorf("a side effect with an unserialisable result: %s", got)
	}
	if _, err := action.Eval(ctxT(t), tab, `Promise.reject(new Error("no"))`); err == nil || !strings.Contains(err.Error(), "EVAL_FAILED") {
		t.Errorf("a rejected promise: %v", err)
	}
}

// TestSitesSeeAnOrdinaryBrowser: a browser loupe launches does not tell
// pages it is automated (navigator.webdriver is false).
func TestSitesSeeAnOrdinaryBrowser(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "basic.html")
	if got, err := action.Eval(ctxT(t), tab, "navigator.webdriver"); err != nil || string(got) != "false" {
		t.Errorf("navigator.webdriver: %s %v, want false", got, err)
	}
}

// TestPointerByObservation: a click at a screenshot's pixel coordinates
// hits a target drawn on a canvas; the same observation after the page
// scrolled, or after it navigated, is STALE_OBSERVATION and sends nothing.
func TestPointerByObservation(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "canvas.html")
	shot, err := action.Screenshot(ctxT(t), tab, action.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := action.PNGSize(shot.PNG)
	if w == 0 || shot.Obs.Scale <= 0 {
		t.Fatalf("observation: %+v, width %d", shot.Obs, w)
	}
	// The square's centre: the canvas is at (60, 40), the square at
	// (200, 100)-(250, 150) in it; in image pixels, times the scale.
	x, y := (60+225)*shot.Obs.Scale, (40+125)*shot.Obs.Scale
	if _, err := action.Pointer(ctxT(t), tab, shot.Obs, action.PointerOptions{Action: "click", X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	if got := enginetest.EvalString(t, tab, "document.getElementById('status').textContent"); !strings.HasPrefix(got, "hit at 225,125 trusted true") {
		t.Fatalf("the click at the screenshot's coordinates: %q", got)
	}
	// Scrolled: the same coordinates now name another place.
	enginetest.EvalString(t, tab, "scrollTo(0, 30), document.getElementById('status').textContent = 'no hit'")
	_, err = action.Pointer(ctxT(t), tab, shot.Obs, action.PointerOptions{Action: "click", X: x, Y: y})
	wantCode(t, err, apitype.StaleObservation)
	if got := enginetest.EvalString(t, tab, "document.getElementById('status').textContent"); got != "no hit" {
		t.Fatalf("a stale observation sent input: %q", got)
	}
	// A new screenshot is current again; a navigation makes it stale.
	shot, err = action.Screenshot(ctxT(t), tab, action.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := action.Pointer(ctxT(t), tab, shot.Obs, action.PointerOptions{Action: "move", X: x, Y: y}); err != nil {
		t.Fatalf("a move at a current observation: %v", err)
	}
	enginetest.Goto(t, tab, "canvas.html")
	_, err = action.Pointer(ctxT(t), tab, shot.Obs, action.PointerOptions{Action: "click", X: x, Y: y})
	wantCode(t, err, apitype.StaleObservation)
	// Outside the viewport: refused, not sent.
	shot, _ = action.Screenshot(ctxT(t), tab, action.ScreenshotOptions{FullPage: true})
	_, err = action.Pointer(ctxT(t), tab, shot.Obs, action.PointerOptions{Action: "click", X: 10, Y: 2900 * shot.Obs.Scale})
	wantCode(t, err, apitype.NotActionable)
}

// TestPageTimings: a document reports its navigation timing and its long
// tasks (the fixture runs one of 120 ms in a timer once loaded; the
// browser hands long tasks over asynchronously, so it is read again until
// it is in, bounded).
func TestPageTimings(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "diagnostics.html")
	var tm *action.Timings
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if tm, err = action.PageTimings(ctxT(t), tab); err != nil {
			t.Fatal(err)
		}
		if tm.Count >= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond) // a bounded poll: the browser hands long tasks over when it gets to it
	}
	if tm.Timing == nil || tm.Timing.DCL <= 0 || tm.Count < 1 || tm.Longest < 120 {
		t.Fatalf("timings: %+v %+v", tm, tm.Timing)
	}
}
