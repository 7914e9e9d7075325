package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// settleStage records a write's outcome, on the way back: in the ledger
// (executed; not executed when the error says so for certain; unknown
// otherwise) and as an op.settled event. The caller's context may have
// ended (a deadline): the outcome is written all the same.
type settleStage struct {
	ledger guard.Ledger
	events *events.Bus
	// retry settles a write again, later, after its settling failed.
	retry func(w guard.Write, e *apitype.Error)
}

// unsettledWarning is said to the caller of a write whose outcome the
// ledger could not record.
const unsettledWarning = "the operation ledger could not record this write's outcome (%v): its record reads as unknown until loupe records it, which it keeps trying in the background"

func (settleStage) name() string { return "settle" }

func (s settleStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() {
		return nil, nil
	}
	return func(o *outcome) {
		ctx := context.WithoutCancel(ctx)
		if t, ok := c.in.(ops.TabOpener); ok && t.OpensTab() && o.err == nil {
			c.write.Opened = c.client.Current() // the tab it opened is the caller's current now
		}
		if err := s.ledger.Settle(ctx, c.write, o.err); err != nil {
			warning := fmt.Sprintf(unsettledWarning, err)
			if o.err != nil {
				o.err.Message += "; " + warning
			} else {
				o.warning = warning
			}
			if s.retry != nil {
				s.retry(c.write, o.err)
			}
		}
		state, code := wire.OpExecuted, ""
		if o.err != nil {
			state, code = wire.OpUnknown, string(o.err.Code)
			if o.err.NotExecuted {
				state = wire.OpNotExecuted
			}
		}
		page := c.write.Page
		if page == "" {
			// The write started the browser: name the tab it acted in.
			tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			if t, err := c.page(tctx); err == nil && t != nil {
				page = t.PageID()
			}
			cancel()
		}
		s.events.Publish(events.Event{Kind: events.OpSettled, Session: c.write.Session, Task: c.write.Task, SurfaceID: page,
			OperationID: c.write.ID, Op: c.write.Op, State: string(state), Unknown: state == wire.OpUnknown, Code: code, Epoch: c.write.Epoch})
	}, nil
}

// Backoff of retrySettle: the first retry soon, then less and less often.
const (
	settleRetryFirst = 250 * time.Millisecond
	settleRetryMax   = 30 * time.Second
)

// retrySettle settles a write again, in the background, until the ledger
// records it or the executor closes: a full disk freed, the row reads as
// what happened rather than unknown. What is still unsettled at close
// stays reserved, and the next start reads it as unknown.
func (x *Executor) retrySettle(w guard.Write, e *apitype.Error) {
	x.bgWork.Go(func() {
		wait := settleRetryFirst
		for try := 1; ; try++ {
			t := time.NewTimer(wait)
			select {
			case <-x.bg.Done():
				t.Stop()
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(x.bg, stageTimeout)
			err := x.ledger.Settle(ctx, w, e)
			cancel()
			if err == nil {
				x.log.Info("settled an operation on a later try", "operation", w.ID, "op", w.Op, "tries", try+1)
				return
			}
			wait = min(2*wait, settleRetryMax)
		}
	})
}
