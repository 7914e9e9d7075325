package executor

import (
	"context"
	"errors"
	"sync"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// lanes queue the writes of each tab, one at a time, from their gate to
// the end of their run. A write waiting its turn has sent nothing, so a
// take-over of its tab ends it for certain not executed (TAKEN_OVER) —
// the engine's own page lock could not tell a write that waits from one
// that is sending. Reads do not queue here.
type lanes struct {
	mu sync.Mutex
	m  map[laneKey]*lane
}

type laneKey struct{ session, page string }

type lane struct {
	turn  chan struct{} // holds a token while a write runs
	users int           // writes holding or waiting; the lane goes at 0
}

// enter waits for the write's turn in its tab's lane and returns the
// function that ends it. It fails, with nothing sent, when the tab's
// epoch moves on (a take-over) or ctx ends first.
func (l *lanes) enter(ctx context.Context, s *sessions.Session, w Write) (leave func(), err error) {
	if w.Page == "" || w.SessionWide {
		return func() {}, nil
	}
	k := laneKey{s.Name(), w.Page}
	l.mu.Lock()
	if l.m == nil {
		l.m = map[laneKey]*lane{}
	}
	ln := l.m[k]
	if ln == nil {
		ln = &lane{turn: make(chan struct{}, 1)}
		l.m[k] = ln
	}
	ln.users++
	l.mu.Unlock()
	done := func() {
		l.mu.Lock()
		if ln.users--; ln.users == 0 {
			delete(l.m, k)
		}
		l.mu.Unlock()
	}
	moved := s.Moved(w.Page, w.Epoch)
	select {
	case ln.turn <- struct{}{}:
	case <-moved:
		done()
		return nil, takenOver(s, w)
	case <-ctx.Done():
		done()
		return nil, apitype.Errorf(apitype.Timeout, "%s waited for the writes before it on tab %s until its deadline; it was not sent", w.Op, w.Page)
	}
	// The turn and a take-over may have come together.
	if mode, epoch := s.Mode(w.Page); (mode == sessions.ModeHuman && !w.Person) || epoch != w.Epoch {
		<-ln.turn
		done()
		return nil, takenOver(s, w)
	}
	return func() { <-ln.turn; done() }, nil
}

// laneStage waits for a write's turn in its tab's lane — after the writes
// before it have run, by the operation's deadline — and leaves the lane
// once the call is done (its report taken). A write that waits has sent
// nothing: a take-over meanwhile ends it, not executed.
type laneStage struct{ l *lanes }

func (laneStage) name() string { return "lane" }

func (s laneStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || c.op.Action == ops.ActControl {
		return nil, nil
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	leave, err := s.l.enter(ctx, c.sess, c.write)
	if err != nil {
		return nil, err
	}
	return func(*outcome) { leave() }, nil
}

func takenOver(s *sessions.Session, w Write) error {
	if s.Crashed(w.Page) {
		return apitype.Errorf(apitype.TabCrashed, "tab %s's renderer crashed while %s waited its turn; it was not sent", w.Page, w.Op).
			Fix("wait until the person hands the tab back, then take a new snapshot ({1})", apitype.Step{Op: "snapshot"})
	}
	return apitype.Errorf(apitype.TakenOver, "a person took tab %s over while %s waited its turn; it was not sent", w.Page, w.Op).
		Fix("wait until they hand it back, then take a new snapshot ({1})", apitype.Step{Op: "snapshot"})
}

// errMovedOn is the cause a write's run is cancelled with when a person
// takes its tab over while it runs.
var errMovedOn = errors.New("the tab was taken over while the write ran")

// watchTab cancels a write's run, at its next step, when a person takes
// its tab over: the person gets the tab at once, not after the rest of a
// long type. What it sent so far stays sent, so its outcome is unknown.
func watchTab(ctx context.Context, s *sessions.Session, w Write) (context.Context, func()) {
	if w.Page == "" || w.SessionWide {
		return ctx, func() {}
	}
	moved := s.Moved(w.Page, w.Epoch)
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-moved:
			cancel(errMovedOn)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// cutShort is the error of a run that watchTab cancelled (cause is why
// the run's context ended): TAKEN_OVER, or
// TAB_CRASHED when the tab went to a person because its renderer crashed,
// each with the outcome unknown.
func cutShort(cause error, s *sessions.Session, w Write, err error) *apitype.Error {
	if errors.Is(err, engine.ErrTabCrashed) || s.Crashed(w.Page) {
		return apitype.Wrap(apitype.TabCrashed, err, "tab %s's renderer crashed while %s ran; it was reloaded for a person to check, and the write's outcome is unknown", w.Page, w.Op).
			Fix("wait until the person hands the tab back, take a new snapshot ({1}) and check the page before you write again", apitype.Step{Op: "snapshot"}).Executed()
	}
	if !errors.Is(cause, errMovedOn) {
		return nil
	}
	e := apitype.Errorf(apitype.TakenOver, "a person took tab %s over while %s ran; it stopped part way, so its outcome is unknown", w.Page, w.Op).
		Fix("wait until they hand it back, then take a new snapshot ({1}) and check the page before you write again", apitype.Step{Op: "snapshot"})
	return e.Executed()
}
