package executor

import (
	"context"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/tabturn"
)

// TestLaneStage: writes of one tab take turns; a write waiting its turn
// ends, not executed, when a person takes the tab over (TAKEN_OVER) or
// its deadline passes (TIMEOUT); writes on the session, reads and a
// person's commands do not queue.
func TestLaneStage(t *testing.T) {
	var l tabturn.Lanes
	click := describe[nothing]("click", ops.Write)
	first := fakeCall(t, click, nil, nil)
	first.write = guard.Write{Op: "click", Session: "default", Page: "s1"}
	leave, err := enter(t, laneStage{&l}, first)
	if err != nil || leave == nil {
		t.Fatalf("first write: %v", err)
	}
	second := fakeCall(t, click, nil, nil)
	second.sess = first.sess
	second.write = first.write
	got := make(chan error, 1)
	go func() {
		leave2, err := laneStage{&l}.enter(context.Background(), second)
		if leave2 != nil {
			leave2(&outcome{})
		}
		got <- err
	}()
	queued(t, &l, 2)
	select {
	case err := <-got:
		t.Fatalf("the second write did not wait for the first: %v", err)
	default:
	}
	leave(&outcome{})
	if err := <-got; err != nil {
		t.Fatalf("the second write after the first: %v", err)
	}

	// A take-over ends the write that waits.
	leave, _ = enter(t, laneStage{&l}, first)
	go func() {
		_, err := laneStage{&l}.enter(context.Background(), second)
		got <- err
	}()
	queued(t, &l, 2)
	first.sess.TakeOver("s1")
	wantCode(t, <-got, apitype.TakenOver)
	leave(&outcome{})
	first.sess.Resume("s1")

	// Its deadline.
	third := fakeCall(t, click, nil, nil)
	third.sess, third.timeout = first.sess, 30*time.Millisecond
	_, epoch := first.sess.Mode("s1")
	third.write = guard.Write{Op: "click", Session: "default", Page: "s1", Epoch: epoch}
	leave, _ = enter(t, laneStage{&l}, third)
	wantCode(t, func() error { _, err := enter(t, laneStage{&l}, third); return err }(), apitype.Timeout)
	leave(&outcome{})

	for _, c := range []*call{fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, nil), fakeCall(t, describe[nothing]("takeover", ops.Write, as(ops.ActControl)), nil, nil)} {
		if leave, err := enter(t, laneStage{&l}, c); leave != nil || err != nil {
			t.Fatalf("%s queued: %v", c.op.Name, err)
		}
	}
	c := fakeCall(t, click, nil, nil)
	c.write = guard.Write{Op: "tab new", Session: "default", Page: "s1", SessionWide: true}
	leave1, _ := enter(t, laneStage{&l}, c)
	leave2, err := enter(t, laneStage{&l}, c)
	if err != nil {
		t.Fatalf("a write on the session queued: %v", err)
	}
	leave1(&outcome{})
	leave2(&outcome{})
}

// queued waits until n writes hold or wait for tab s1's lane (a bounded
// poll: entering a lane has no event of its own).
func queued(t *testing.T, l *tabturn.Lanes, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for l.Users("default", "s1") != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes in the lane, want %d", l.Users("default", "s1"), n)
		}
		time.Sleep(time.Millisecond)
	}
}
