package tabturn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/sessions"
)

func session(t *testing.T) *sessions.Session {
	return sessions.New(sessions.Config{Home: t.TempDir()}).Get("default")
}

func wantCode(t *testing.T, err error, code apitype.Code) {
	t.Helper()
	var e *apitype.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
}

// queued waits until n writes hold or wait for tab s1's lane (a bounded
// poll: entering a lane has no event of its own).
func queued(t *testing.T, l *Lanes, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for l.Users("default", "s1") != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes in the lane, want %d", l.Users("default", "s1"), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestLanes: writes of one tab take turns; a write waiting its turn ends,
// not executed, when a person takes the tab over (TAKEN_OVER) or its
// deadline passes (TIMEOUT); a write on the session takes no turn; the
// lane goes when its last write leaves.
func TestLanes(t *testing.T) {
	var l Lanes
	s := session(t)
	w := Write{Op: "click", Page: "s1"}
	leave, err := l.Enter(context.Background(), s, w)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		leave2, err := l.Enter(context.Background(), s, w)
		if leave2 != nil {
			leave2()
		}
		got <- err
	}()
	queued(t, &l, 2)
	select {
	case err := <-got:
		t.Fatalf("the second write did not wait for the first: %v", err)
	default:
	}
	leave()
	if err := <-got; err != nil {
		t.Fatalf("the second write after the first: %v", err)
	}
	queued(t, &l, 0)

	// A take-over ends the write that waits; the person's own write is
	// not stopped by it.
	leave, _ = l.Enter(context.Background(), s, w)
	go func() {
		_, err := l.Enter(context.Background(), s, w)
		got <- err
	}()
	queued(t, &l, 2)
	s.TakeOver("s1")
	wantCode(t, <-got, apitype.TakenOver)
	leave()
	_, epoch := s.Mode("s1")
	person := Write{Op: "click", Page: "s1", Epoch: epoch, Person: true}
	leave, err = l.Enter(context.Background(), s, person)
	if err != nil {
		t.Fatalf("the person's write in their tab: %v", err)
	}
	leave()
	s.Resume("s1")

	// Its deadline.
	_, epoch = s.Mode("s1")
	w.Epoch = epoch
	leave, _ = l.Enter(context.Background(), s, w)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = l.Enter(ctx, s, w)
	wantCode(t, err, apitype.Timeout)
	leave()

	wide := Write{Op: "tab new", Page: "s1", SessionWide: true}
	leave1, _ := l.Enter(context.Background(), s, wide)
	leave2, err := l.Enter(context.Background(), s, wide)
	if err != nil || l.Users("default", "s1") != 0 {
		t.Fatalf("a write on the session queued: %v", err)
	}
	leave1()
	leave2()
}

// TestWatchCutsShort: a take-over while a write runs cancels its context
// with ErrMovedOn, and CutShort makes that TAKEN_OVER with the outcome
// unknown; a run that ended otherwise is not cut short; a crash is
// TAB_CRASHED, also unknown.
func TestWatchCutsShort(t *testing.T) {
	s := session(t)
	w := Write{Op: "type", Page: "s1"}
	ctx, stop := Watch(context.Background(), s, w)
	defer stop()
	s.TakeOver("s1")
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the take-over did not cancel the run")
	}
	cause := context.Cause(ctx)
	if !errors.Is(cause, ErrMovedOn) {
		t.Fatalf("cause %v", cause)
	}
	e := CutShort(cause, s, w, ctx.Err())
	if e == nil || e.Code != apitype.TakenOver || e.NotExecuted {
		t.Fatalf("cut short: %+v", e)
	}
	if e := CutShort(context.DeadlineExceeded, s, Write{Op: "type", Page: "s2"}, context.DeadlineExceeded); e != nil {
		t.Fatalf("a run that timed out was cut short: %+v", e)
	}
	if e := CutShort(nil, s, Write{Op: "type", Page: "s2"}, engine.ErrTabCrashed); e == nil || e.Code != apitype.TabCrashed || e.NotExecuted {
		t.Fatalf("crash: %+v", e)
	}

	// A write on the session is not watched.
	wctx, stop2 := Watch(context.Background(), s, Write{Op: "tab new", Page: "s1", SessionWide: true})
	stop2()
	if wctx.Err() != nil {
		t.Fatal("a session-wide write was watched")
	}
}
