// Package tabturn decides whose turn it is on a tab: the agents' writes
// on one tab take turns (a lane per tab), and a person who takes the tab
// over — or a renderer crash, which hands the tab to a person — ends the
// turn of every write that waits (certainly not sent) and cuts short the
// one that runs (its outcome unknown). The executor's lane and run stages
// use it; it knows sessions, not calls, so it stands and is tested alone.
package tabturn

import (
	"context"
	"errors"
	"sync"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// Write is what the turn of a write depends on.
type Write struct {
	Op    string // the operation, for messages
	Page  string // the tab it acts in ("" for none)
	Epoch int64  // of that tab when the write was planned (its take-overs so far)
	// Person: the write is the person's own; a tab they hold does not
	// stop it.
	Person bool
	// SessionWide: the write works on the session, not in a tab (tab
	// new, switch); it takes no tab's turn.
	SessionWide bool
}

func (w Write) inTab() bool { return w.Page != "" && !w.SessionWide }

// Lanes queue the writes of each tab, one at a time, from their gate to
// the end of their run. A write waiting its turn has sent nothing, so a
// take-over of its tab ends it for certain not executed (TAKEN_OVER) —
// the engine's own page lock could not tell a write that waits from one
// that is sending. Reads do not queue here. The zero value is ready.
type Lanes struct {
	mu sync.Mutex
	m  map[key]*lane
}

type key struct{ session, page string }

type lane struct {
	turn  chan struct{} // holds a token while a write runs
	users int           // writes holding or waiting; the lane goes at 0
}

// Enter waits for the write's turn in its tab's lane and returns the
// function that ends it. It fails, with nothing sent, when the tab's
// epoch moves on (a take-over) or ctx ends first.
func (l *Lanes) Enter(ctx context.Context, s *sessions.Session, w Write) (leave func(), err error) {
	if !w.inTab() {
		return func() {}, nil
	}
	k := key{s.Name(), w.Page}
	l.mu.Lock()
	if l.m == nil {
		l.m = map[key]*lane{}
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

// Users is how many writes hold or wait for a tab's turn.
func (l *Lanes) Users(session, page string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ln := l.m[key{session, page}]; ln != nil {
		return ln.users
	}
	return 0
}

func takenOver(s *sessions.Session, w Write) error {
	if s.Crashed(w.Page) {
		return apitype.Errorf(apitype.TabCrashed, "tab %s's renderer crashed while %s waited its turn; it was not sent", w.Page, w.Op).
			Fix("wait until the person hands the tab back, then take a new snapshot ({1})", apitype.Step{Op: "snapshot"})
	}
	return apitype.Errorf(apitype.TakenOver, "a person took tab %s over while %s waited its turn; it was not sent", w.Page, w.Op).
		Fix("wait until they hand it back, then take a new snapshot ({1})", apitype.Step{Op: "snapshot"})
}

// ErrMovedOn is the cause a write's run is cancelled with when a person
// takes its tab over while it runs.
var ErrMovedOn = errors.New("the tab was taken over while the write ran")

// Watch cancels a write's run, at its next step, when a person takes its
// tab over: the person gets the tab at once, not after the rest of a long
// type. What it sent so far stays sent, so its outcome is unknown. stop
// ends the watch.
func Watch(ctx context.Context, s *sessions.Session, w Write) (_ context.Context, stop func()) {
	if !w.inTab() {
		return ctx, func() {}
	}
	moved := s.Moved(w.Page, w.Epoch)
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-moved:
			cancel(ErrMovedOn)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// CutShort is the error of a run that Watch cancelled (cause is why the
// run's context ended, err what the run returned): TAKEN_OVER, or
// TAB_CRASHED when the tab went to a person because its renderer crashed,
// each with the outcome unknown. It is nil for a run Watch did not end.
func CutShort(cause error, s *sessions.Session, w Write, err error) *apitype.Error {
	if errors.Is(err, engine.ErrTabCrashed) || s.Crashed(w.Page) {
		return apitype.Wrap(apitype.TabCrashed, err, "tab %s's renderer crashed while %s ran; it was reloaded for a person to check, and the write's outcome is unknown", w.Page, w.Op).
			Fix("wait until the person hands the tab back, take a new snapshot ({1}) and check the page before you write again", apitype.Step{Op: "snapshot"}).Executed()
	}
	if !errors.Is(cause, ErrMovedOn) {
		return nil
	}
	e := apitype.Errorf(apitype.TakenOver, "a person took tab %s over while %s ran; it stopped part way, so its outcome is unknown", w.Page, w.Op).
		Fix("wait until they hand it back, then take a new snapshot ({1}) and check the page before you write again", apitype.Step{Op: "snapshot"})
	return e.Executed()
}
