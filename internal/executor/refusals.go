package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
)

// recordedRefusals are the refusals of a write the ledger records, as not
// executed with their code: what a person reading the ledger must see was
// asked for and stopped — by a take-over, the approval policy (denied, or
// nobody answered), a person's control of the tab, or a grant.
var recordedRefusals = map[apitype.Code]bool{
	apitype.TakenOver: true, apitype.Denied: true, apitype.ApprovalTimeout: true,
	apitype.HumanControl: true, apitype.NoGrant: true,
}

// refusalsStage records, on the way back, a write refused before the
// ledger reserved it (see recordedRefusals); the caller's error then
// names the row's operation id. Malformed input, a reused id and the
// like are the caller's mistakes, not writes, and leave no row.
type refusalsStage struct{ l guard.Ledger }

func (refusalsStage) name() string { return "refusals" }

func (s refusalsStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() {
		return nil, nil
	}
	return func(o *outcome) {
		if o.err == nil || !o.err.NotExecuted || c.reserved || !recordedRefusals[o.err.Code] {
			return
		}
		w := c.write
		if w.ID == "" { // refused before it was described
			id := c.req.OperationID
			if !apitype.ValidOperationID(id) {
				id = apitype.NewOperationID()
			}
			w = baseWrite(c, id)
			if o.err.Code == apitype.NoGrant {
				w.Task = c.task // the task the caller claimed
			}
		}
		s.l.Refuse(context.WithoutCancel(ctx), w, o.err)
		o.err.OperationID = w.ID
	}, nil
}
