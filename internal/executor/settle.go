package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
)

// settleStage records a write's outcome, on the way back: in the ledger
// (executed; not executed when the error says so for certain; unknown
// otherwise) and as an op.settled event. The caller's context may have
// ended (a deadline): the outcome is written all the same.
type settleStage struct {
	ledger Ledger
	events *events.Bus
}

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
		s.ledger.Settle(ctx, c.write, o.err)
		state, code := ledger.Executed, ""
		if o.err != nil {
			state, code = ledger.Unknown, string(o.err.Code)
			if o.err.NotExecuted {
				state = ledger.NotExecuted
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
			OperationID: c.write.ID, Op: c.write.Op, State: string(state), Unknown: state == ledger.Unknown, Code: code, Epoch: c.write.Epoch})
	}, nil
}
