package executor

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/live"
)

// TestLiveNeedsARunningBrowser: a person's reads for the dashboard never
// start a browser: with none running they say so (SURFACE_CLOSED), and a
// picture of an approval that is not waiting is BAD_INPUT.
func TestLiveNeedsARunningBrowser(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	defer x.Close(context.Background())
	_, err := x.Watch(context.Background(), "default", "s1", live.Options{})
	wantCode(t, err, apitype.SurfaceClosed)
	_, err = x.Watch(context.Background(), "../x", "s1", live.Options{})
	wantCode(t, err, apitype.BadInput)
	_, err = x.ApprovalShot(context.Background(), "a1")
	wantCode(t, err, apitype.BadInput)
	if len(x.Sessions()) != 0 || x.Registry() == nil || x.Events() == nil {
		t.Fatal("a browser started, or the executor lacks its registry or bus")
	}
}
