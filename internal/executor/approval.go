package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
)

// approvalStage asks the approval policy about an agent's write. A
// person's own commands (take-over, policy, approvals) are not theirs to
// approve, nor are their writes at the dashboard. A write held for a
// person waits by the policy's own bound, not the operation's deadline.
type approvalStage struct{ policy guard.Policy }

func (approvalStage) name() string { return "approval" }

func (s approvalStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || c.op.Action == ops.ActControl || c.req.Person {
		return nil, nil
	}
	waited, err := s.policy.Allow(ctx, c.write)
	c.approvedAfter += waited
	return nil, err
}
