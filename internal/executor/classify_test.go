package executor

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/tabturn"
)

// partial is a raw error of a step that came after an earlier one had an
// effect.
type partial struct{}

func (partial) Error() string  { return "second step failed" }
func (partial) Executed() bool { return true }

// TestClassify: every raw failure gets a registry code; a read's is not
// executed, and a write's is unknown unless the error says for certain
// that nothing was sent — never not_executed on a guess.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err             error
		code            apitype.Code
		read, writeNotX bool // not executed, for a read and for a write
	}{
		{context.DeadlineExceeded, apitype.Timeout, true, false},
		{context.Canceled, apitype.Timeout, true, false},
		{fmt.Errorf("x: %w", engine.ErrPageBlocked), apitype.PageBlocked, true, false},
		{engine.ErrTabCrashed, apitype.TabCrashed, true, false},
		{engine.ErrTabClosed, apitype.SurfaceClosed, true, false},
		{cdp.ErrSessionGone, apitype.SurfaceClosed, true, false},
		{&cdp.Error{Message: "Target closed"}, apitype.SurfaceClosed, true, false},
		{cdp.ErrClosed, apitype.BrowserGone, true, false},
		{engine.ErrDocumentGone, apitype.StaleRef, true, true},
		{errors.New("odd"), apitype.Internal, true, false},
		{partial{}, apitype.Internal, true, false},
		{&apitype.Error{Code: apitype.NotActionable, NotExecuted: true}, apitype.NotActionable, true, true},
		{&apitype.Error{Code: apitype.NotActionable}, apitype.NotActionable, true, false},
	} {
		for _, kind := range []ops.Kind{ops.Read, ops.Write} {
			err := tc.err
			if e, ok := err.(*apitype.Error); ok {
				c := *e // Classify marks a registry error in place
				err = &c
			}
			e := Classify(err, kind)
			want := tc.read
			if kind == ops.Write {
				want = tc.writeNotX
			}
			if e.Code != tc.code || e.NotExecuted != want {
				t.Errorf("Classify(%v, %s) = %s not_executed=%v, want %s %v", tc.err, kind, e.Code, e.NotExecuted, tc.code, want)
			}
		}
	}
}

// TestClassifyStage: on the way back, the run's raw error becomes the
// call's registry error naming the operation, the write's id and the
// deadline; a write cut short by a take-over is TAKEN_OVER with its
// outcome unknown; a success stays one.
func TestClassifyStage(t *testing.T) {
	click := describe[nothing]("click", ops.Write)
	c := fakeCall(t, click, nil, nil)
	c.write, c.timeout = guard.Write{ID: "op-1", Op: "click", Session: "default", Page: "s1"}, 1500*time.Millisecond
	leave, _ := enter(t, classifyStage{}, c)
	o := &outcome{raw: context.DeadlineExceeded}
	leave(o)
	if o.err == nil || o.err.Code != apitype.Timeout || o.err.Op != "click" || o.err.OperationID != "op-1" || o.err.TimeoutMS != 1500 || o.err.NotExecuted {
		t.Fatalf("deadline: %+v", o.err)
	}
	o = &outcome{raw: context.Canceled, cause: tabturn.ErrMovedOn}
	leave(o)
	if o.err.Code != apitype.TakenOver || o.err.NotExecuted {
		t.Fatalf("taken over mid-run: %+v", o.err)
	}
	c.sess.CrashedOver("s1")
	o = &outcome{raw: engine.ErrTabCrashed}
	leave(o)
	if o.err.Code != apitype.TabCrashed || o.err.NotExecuted {
		t.Fatalf("crashed mid-run: %+v", o.err)
	}
	// An operation's own wait that ran out is the deadline the hint names.
	wc := fakeCall(t, describe[ownWait]("wait", ops.Read), nil, nil)
	wc.in, wc.timeout = &ownWait{d: 700 * time.Millisecond}, 65*time.Second
	wleave, _ := enter(t, classifyStage{}, wc)
	wo := &outcome{raw: apitype.Errorf(apitype.Timeout, "waited 700ms")}
	wleave(wo)
	if wo.err.TimeoutMS != 700 {
		t.Fatalf("own wait's timeout: %d ms, want 700", wo.err.TimeoutMS)
	}
	o = &outcome{out: &nothing{}}
	leave(o)
	if o.err != nil {
		t.Fatalf("a success: %+v", o.err)
	}
}

// ownWait is an input with a wait of its own (as ops.WaitIn).
type ownWait struct{ d time.Duration }

func (w *ownWait) Wait() time.Duration { return w.d }
