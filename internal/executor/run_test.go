package executor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/tabturn"
)

// TestRunStage: the handler gets the call's dependencies and input, by
// the operation's deadline; a write's run ends at its next step when a
// person takes its tab over, and the cause says so.
func TestRunStage(t *testing.T) {
	var got *handlers.Deps
	c := fakeCall(t, describe[nothing]("look", ops.Read), nil, nil)
	c.handler = handlers.Func(func(ctx context.Context, d *handlers.Deps, _ *nothing) (*nothing, error) {
		got = d
		if _, ok := ctx.Deadline(); !ok {
			return nil, errors.New("no deadline")
		}
		return &nothing{}, nil
	})
	leave, err := enter(t, runStage{}, c)
	o := &outcome{}
	leave(o)
	if err != nil || o.raw != nil || o.out == nil || got != c.deps {
		t.Fatalf("run: %+v, %v", o, err)
	}

	w := fakeCall(t, describe[nothing]("type", ops.Write), nil, nil)
	w.write = guard.Write{Op: "type", Session: "default", Page: "s1"}
	w.timeout = 10 * time.Second
	running := make(chan struct{})
	w.handler = handlers.Func(func(ctx context.Context, _ *handlers.Deps, _ *nothing) (*nothing, error) {
		close(running)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	go func() {
		<-running
		w.sess.TakeOver("s1")
	}()
	leave, _ = enter(t, runStage{}, w)
	o = &outcome{}
	leave(o)
	if !errors.Is(o.cause, tabturn.ErrMovedOn) || o.raw == nil {
		t.Fatalf("taken over while it ran: %+v", o)
	}
}
