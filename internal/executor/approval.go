package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
)

// Policy decides whether a write may run: allow it, refuse it (DENIED), or
// hold it for a person's answer; waited says how long it was held.
type Policy interface {
	Allow(ctx context.Context, w Write) (waited time.Duration, err error)
}

// approvalStage asks the approval policy about an agent's write. A
// person's own commands (take-over, policy, approvals) are not theirs to
// approve, nor are their writes at the dashboard. A write held for a
// person waits by the policy's own bound, not the operation's deadline.
type approvalStage struct{ policy Policy }

func (approvalStage) name() string { return "approval" }

func (s approvalStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || c.op.Action == ops.ActControl || c.req.Person {
		return nil, nil
	}
	waited, err := s.policy.Allow(ctx, c.write)
	c.approvedAfter += waited
	return nil, err
}

// allowAll is the policy of an executor without rules: every write may
// run.
type allowAll struct{}

func (allowAll) Allow(context.Context, Write) (time.Duration, error) { return 0, nil }

// rulesPolicy is the Policy of the rules in force.
type rulesPolicy struct {
	p *policy.Policy
	q *approvals
}

// Allow decides a write: allowed, denied (DENIED naming the rule), or held
// for a person's answer.
func (s rulesPolicy) Allow(ctx context.Context, w Write) (time.Duration, error) {
	d, rule := s.p.Decide(w.Op, string(w.Action), w.Origin)
	name := ruleName(rule)
	switch d {
	case policy.Deny:
		return 0, apitype.Errorf(apitype.Denied, "the approval policy denies %s (rule %s: deny)", w.Op, name)
	case policy.Ask:
		return s.q.ask(ctx, w, s.p.ApprovalTimeout(), name)
	}
	return 0, nil
}
