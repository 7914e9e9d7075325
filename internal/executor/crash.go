package executor

import (
	"context"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// A tab whose renderer crashes this often (maxCrashes within crashWindow)
// is left crashed for a person rather than reloaded again: a page that
// kills its renderer on load would otherwise loop.
const (
	maxCrashes  = 3
	crashWindow = 10 * time.Minute
)

// crashes counts recent crashes per tab.
type crashes struct {
	mu sync.Mutex
	m  map[laneKey][]time.Time
}

// again records a crash and reports whether the tab may be reloaded.
func (c *crashes) again(k laneKey, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[laneKey][]time.Time{}
	}
	recent := c.m[k][:0]
	for _, t := range c.m[k] {
		if now.Sub(t) < crashWindow {
			recent = append(recent, t)
		}
	}
	c.m[k] = append(recent, now)
	return len(c.m[k]) <= maxCrashes
}

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
	if !x.crashLog.again(laneKey{s.Name(), page}, time.Now()) {
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

// crashError is the refusal of an operation on a tab that crashed: while
// its renderer is down, and after, until a person hands it back.
func crashError(page string, reloading bool) *apitype.Error {
	msg := "tab %s's renderer crashed; it was reloaded for a person to check, and the agents get it back when they resume it; nothing was read or sent"
	if reloading {
		msg = "tab %s's renderer crashed; it is being reloaded for a person to check; nothing was read or sent"
	}
	return apitype.Errorf(apitype.TabCrashed, msg, page).
		Fix("work in another tab ({1}), or wait until the person hands this one back and take a new snapshot ({2})",
			apitype.Step{Op: "tabs"}, apitype.Step{Op: "snapshot"})
}
