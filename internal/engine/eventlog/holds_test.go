package eventlog

import (
	"context"
	"errors"
	"testing"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// TestHolds: a held session's calls end at once (ErrPageBlocked), but for
// the ones that leave or answer the page; the hold ends when released,
// and another session of the page is not held.
func TestHolds(t *testing.T) {
	var h Holds
	s, other := &cdp.Session{}, &cdp.Session{}
	ctx := h.Ctx(s, "Runtime.evaluate")
	if h.Held(s) || ctx.Err() != nil {
		t.Fatal("held before any dialog")
	}
	h.Hold(s)
	if !h.Held(s) || !errors.Is(context.Cause(ctx), ErrPageBlocked) || h.Held(other) {
		t.Fatalf("hold: held %v, cause %v, other held %v", h.Held(s), context.Cause(ctx), h.Held(other))
	}
	if h.Ctx(s, "Page.navigate") != nil || h.Ctx(s, "Page.handleJavaScriptDialog") != nil {
		t.Fatal("leaving or answering the page waits on the held renderer")
	}
	h.Release(s)
	if h.Held(s) || h.Ctx(s, "Runtime.evaluate").Err() != nil {
		t.Fatal("still held after release")
	}
}
