package person_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/person"
	"github.com/loupe-dev/loupe/internal/testpages"
)

var (
	ctxT = enginetest.Ctx
	snap = enginetest.Snap
	ref  = enginetest.Ref
)

// barrier returns once the page has handled everything sent to it before:
// an evaluation's reply follows the events the page sent before it, and
// the reports were counted as those events were read.
func barrier(t *testing.T, tab *engine.Surface) {
	t.Helper()
	if err := tab.Session().Call(ctxT(t), "Runtime.evaluate", map[string]any{"expression": "1"}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestPersonInput: trusted input that loupe did not send — here sent on
// the page's session around loupe's bookkeeping, as a person's would come
// from the window — is reported to the handler; loupe's own click is its
// echo and is not.
func TestPersonInput(t *testing.T) {
	bin, err := chromium.Find("", true)
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan string, 8)
	watch, reports := person.WithInputCounted(func(_ context.Context, tab *engine.Surface) { heard <- tab.ID })
	b, err := engine.Launch(ctxT(t), engine.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(t.TempDir(), "profile")}, watch)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	a := testpages.Start(t, "127.0.0.1")
	tab, _ := b.Surface(ctxT(t), "")
	if _, err := nav.Navigate(ctxT(t), tab, a.Page("form.html")); err != nil {
		t.Fatal(err)
	}

	// A person's click: not through loupe's input.
	raw := tab.Session().Session
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := raw.Call(ctxT(t), "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": 5, "y": 5, "button": "left", "clickCount": 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	barrier(t, tab)
	if persons, echoes := reports(); persons != 1 || echoes != 0 {
		t.Fatalf("after a person's click: %d person reports, %d echoes", persons, echoes)
	}
	select {
	case id := <-heard:
		if id != tab.ID {
			t.Errorf("the handler heard of %s, want %s", id, tab.ID)
		}
	case <-ctxT(t).Done():
		t.Fatal("the handler was not called")
	}

	// loupe's own click is trusted too, and is its echo.
	button := ref(t, snap(t, tab), "button", "Go")
	if _, err := action.Click(ctxT(t), tab, button, action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	barrier(t, tab)
	if persons, echoes := reports(); persons != 1 || echoes != 1 {
		t.Fatalf("after loupe's click: %d person reports, %d echoes", persons, echoes)
	}
	// The page's own synthetic events are not trusted: never reported.
	if err := tab.Session().Call(ctxT(t), "Runtime.evaluate", map[string]any{
		"expression": `dispatchEvent(new PointerEvent("pointerdown")); document.body.dispatchEvent(new KeyboardEvent("keydown", {bubbles: true}))`,
	}, nil); err != nil {
		t.Fatal(err)
	}
	barrier(t, tab)
	if persons, echoes := reports(); persons != 1 || echoes != 1 {
		t.Fatalf("after synthetic events: %d person reports, %d echoes", persons, echoes)
	}
}
