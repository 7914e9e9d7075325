package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// crashed handles a tab's renderer crash: the tab goes to a person (its
// epoch moves on, so every waiting or queued write of the agents ends, and
// the write that was running reports TAB_CRASHED with its outcome
// unknown), then it is reloaded at its last safe address for the person
// to check. The agents may use it again once the person resumes it.
func (x *Executor) crashed(ctx context.Context, s *sessions.Session, t *engine.Surface) {
	page, url := t.PageID(), t.URL()
	epoch := s.CrashedOver(page)
	x.waiting.TakenOver(s.Name(), page)
	x.events.Publish(events.Event{Kind: events.TabCrashed, Session: s.Name(), SurfaceID: page, URL: url, Epoch: epoch})
	if !x.crashLog.Again(s.Name(), page, time.Now()) {
		x.events.Publish(events.Event{Kind: events.TabCrashed, Session: s.Name(), SurfaceID: page, URL: url, Epoch: epoch, State: "left_crashed"})
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	reloaded, err := t.RecoverCrash(ctx)
	state := "reloaded"
	if err != nil {
		state = "reload_failed"
	}
	x.events.Publish(events.Event{Kind: events.TabCrashed, Session: s.Name(), SurfaceID: page, URL: reloaded, Epoch: epoch, State: state})
}
