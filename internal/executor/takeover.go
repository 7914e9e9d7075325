package executor

import (
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// control is the take-over control of a session, which also ends the
// writes of a tab waiting for approval when a person takes it.
type control struct {
	handlers.Control
	q       *approvals.Queue
	events  *events.Bus
	session string
}

func (c control) TakeOver(page string) int64 {
	e := c.Control.TakeOver(page)
	c.q.HandedOver(c.session, page, e, "")
	return e
}

// personInput hands a tab to the person whose own input loupe saw in it
// (headed and attached browsers; see package engine/person), as `loupe
// takeover` would: at once, ending the agents' waiting and queued writes.
func (x *Executor) personInput(s *sessions.Session, t *engine.Surface) {
	page := t.PageID()
	if mode, _ := s.Mode(page); mode == sessions.ModeHuman {
		return
	}
	x.waiting.HandedOver(s.Name(), page, s.TakeOver(page), "person_input")
}

func (c control) Resume(page string) (int64, bool) {
	e, ok := c.Control.Resume(page)
	if ok {
		c.events.Publish(events.Event{Kind: events.TabResumed, Session: c.session, SurfaceID: page, Epoch: e})
	}
	return e, ok
}
