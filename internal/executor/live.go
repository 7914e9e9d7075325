package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/live"
)

// What a person watching the browsers reads beside the operations (the
// dashboard): a tab's live picture, and a picture of what a waiting write
// would act on. Both are reads of a browser that is running; neither ever
// starts one, and neither is an agent's: they pass no grant or gate.

// running is a session's live browser, or SURFACE_CLOSED saying it has
// none.
func (x *Executor) running(session string) (*engine.Browser, error) {
	if !apitype.ValidSession(session) {
		return nil, apitype.Errorf(apitype.BadInput, "session %q: %s", session, apitype.SessionRule)
	}
	b := x.sessions.Get(session).Running()
	if b == nil {
		return nil, apitype.Errorf(apitype.SurfaceClosed, "session %s has no browser running", session)
	}
	return b, nil
}

// Watch streams a tab's pictures (see package live) until ctx ends or the
// tab goes.
func (x *Executor) Watch(ctx context.Context, session, surface string, o live.Options) (<-chan live.Frame, error) {
	b, err := x.running(session)
	if err != nil {
		return nil, err
	}
	t, err := b.Surface(ctx, surface)
	if err != nil {
		return nil, err
	}
	return live.Watch(ctx, b, t, o)
}

// ApprovalShot is a PNG of what a waiting write would act on: the element
// it names, or its tab's viewport.
func (x *Executor) ApprovalShot(ctx context.Context, id string) ([]byte, error) {
	var found bool
	var session, surface, target string
	for _, a := range x.waiting.List() {
		if a.ID == id {
			found, session, surface, target = true, a.Session, a.SurfaceID, a.Target
		}
	}
	if !found {
		return nil, apitype.Errorf(apitype.BadInput, "no write is waiting for approval %q", id)
	}
	b, err := x.running(session)
	if err != nil {
		return nil, err
	}
	t, err := b.Surface(ctx, surface) // "" is the first tab
	if err != nil {
		return nil, err
	}
	if target != "" {
		if shot, err := action.Screenshot(ctx, t, action.ScreenshotOptions{Ref: target}); err == nil {
			return shot.PNG, nil
		}
		// An element that cannot be pictured (gone, hidden): the
		// viewport says where the write would act.
	}
	shot, err := action.Screenshot(ctx, t, action.ScreenshotOptions{})
	if err != nil {
		return nil, err
	}
	return shot.PNG, nil
}
