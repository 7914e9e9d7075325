package nav_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/nav"
)

func TestWaits(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "form2.html")
	s := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Later"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(withTimeout(ctxT(t), 3*time.Second), tab, nav.WaitOptions{Text: "late text"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := nav.Wait(withTimeout(ctxT(t), 300*time.Millisecond), tab, nav.WaitOptions{Text: "never there"})
	wantCode(t, err, apitype.Timeout)
	// Generous for a loaded machine; a wait that outlived its deadline
	// would run to the step's (enginetest.StepTimeout).
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a 300ms wait took %v", d)
	}
	// Both already hold: the waits return at once (5 s, generous for a
	// loaded machine).
	if _, err := nav.Wait(withTimeout(ctxT(t), 5*time.Second), tab, nav.WaitOptions{URL: "*/form2.html"}); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(withTimeout(ctxT(t), 5*time.Second), tab, nav.WaitOptions{Load: true}); err != nil {
		t.Fatal(err)
	}
}

// TestWaitTextInFrames: a wait for text sees it in a cross-site frame, as
// the snapshot does, and still times out for text nowhere on the page.
func TestWaitTextInFrames(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	snap(t, tab) // the frames are attached
	s := snap(t, tab)
	if !strings.Contains(s.Text, "cross idle") {
		t.Fatalf("no cross-site frame text:\n%s", s.Text)
	}
	if _, err := nav.Wait(withTimeout(ctxT(t), 3*time.Second), tab, nav.WaitOptions{Text: "cross idle"}); err != nil {
		t.Fatalf("text in the cross-site frame: %v", err)
	}
	_, err := nav.Wait(withTimeout(ctxT(t), 300*time.Millisecond), tab, nav.WaitOptions{Text: "nowhere at all"})
	wantCode(t, err, apitype.Timeout)
}

// TestWaitForLocatorToAppear: a wait for a locator that matches nothing
// yet waits for it to appear (the page adds it after a click); one that
// never appears times out; a ref is never waited for — it cannot appear
// later.
func TestWaitForLocatorToAppear(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "form2.html")
	s := snap(t, tab)
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Later"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Wait(withTimeout(ctxT(t), 3*time.Second), tab, nav.WaitOptions{Ref: `css=p:nth-of-type(2)`}); err != nil {
		t.Fatalf("a locator of an element the page adds: %v", err)
	}
	start := time.Now()
	_, err := nav.Wait(withTimeout(ctxT(t), 700*time.Millisecond), tab, nav.WaitOptions{Ref: `role=button[name="Never"]`})
	wantCode(t, err, apitype.Timeout)
	// Generous, as in TestWaits.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a 700ms wait took %v", d)
	}
	_, err = nav.Wait(withTimeout(ctxT(t), 3*time.Second), tab, nav.WaitOptions{Ref: "e999999"})
	if e, ok := apitype.As(err); !ok || e.Code == apitype.Timeout {
		t.Fatalf("a ref never issued was waited for: %v", err)
	}
}

// TestWaitTextGone: a wait for text to go ends once no frame shows it —
// here the cross-site frame's, which a click there changes — and times
// out while one still does. A time wait takes its time.
func TestWaitTextGone(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	snap(t, tab) // the frames are attached
	s := snap(t, tab)
	if !strings.Contains(s.Text, "cross idle") {
		t.Fatalf("no cross-site frame text:\n%s", s.Text)
	}
	_, err := nav.Wait(withTimeout(ctxT(t), 300*time.Millisecond), tab, nav.WaitOptions{TextGone: "cross idle"})
	wantCode(t, err, apitype.Timeout)
	// Nothing has to change for it, so it ends on the frames' first
	// answers; the bound is for those round trips (three frames, one in
	// another process) on a loaded make test, where 3 s was once too few.
	if _, err := nav.Wait(withTimeout(ctxT(t), 15*time.Second), tab, nav.WaitOptions{TextGone: "nowhere at all"}); err != nil {
		t.Fatalf("text that is not there is gone at once: %v", err)
	}
	var goRef string
	for _, r := range s.Refs {
		if r.Name == "Go" && r.FrameID != "" && strings.Contains(frameURL(tab, r.FrameID), "label=cross") {
			goRef = r.Ref
		}
	}
	if goRef == "" {
		t.Fatalf("no Go button in the cross-site frame:\n%s", s.Text)
	}
	done := make(chan error, 1)
	go func() {
		_, err := nav.Wait(withTimeout(ctxT(t), 10*time.Second), tab, nav.WaitOptions{TextGone: "cross idle"})
		done <- err
	}()
	if _, err := action.Click(ctxT(t), tab, goRef, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the text went in the cross-site frame: %v", err)
	}
	start := time.Now()
	if _, err := nav.Wait(withTimeout(ctxT(t), 5*time.Second), tab, nav.WaitOptions{For: 200 * time.Millisecond}); err != nil || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("a 200ms time wait: %v after %v", err, time.Since(start))
	}
}

// frameURL is a frame's address ("" for one the tab does not know).
func frameURL(tab *engine.Surface, id string) string {
	f, _ := tab.Frame(id)
	return f.URL
}
