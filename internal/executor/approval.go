package executor

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/wire"
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

// ask holds a write for a person's answer (package approvals).
func ask(ctx context.Context, q *approvals.Queue, w Write, timeout time.Duration, rule string) (time.Duration, error) {
	a := wire.Approval{OperationID: w.ID, Op: w.Op, Action: string(w.Action), Session: w.Session, Client: w.Client,
		SurfaceID: w.Surface, Page: w.Page, Origin: w.Origin, Digest: w.Digest, Task: w.Task, Target: w.Element, Locator: w.Locator, Element: w.ElementLine}
	// What will be sent, as the ledger keeps it: a secret's text masked,
	// an upload's files by name and size.
	if b, err := json.Marshal(w.Input); err == nil && w.Input != nil {
		a.Input = json.RawMessage(ledger.KeptInput(b, w.Secret))
	}
	return q.Ask(ctx, a, timeout, rule)
}

// allowAll is the policy of an executor without rules: every write may
// run.
type allowAll struct{}

func (allowAll) Allow(context.Context, Write) (time.Duration, error) { return 0, nil }

// rulesPolicy is the Policy of the rules in force.
type rulesPolicy struct {
	p *policy.Policy
	q *approvals.Queue
}

// Allow decides a write: allowed, denied (DENIED naming the rule), or held
// for a person's answer.
func (s rulesPolicy) Allow(ctx context.Context, w Write) (time.Duration, error) {
	d, rule := s.p.Decide(w.Op, string(w.Action), w.Origin)
	name := rule.Name()
	switch d {
	case policy.Deny:
		return 0, apitype.Errorf(apitype.Denied, "the approval policy denies %s (rule %s: deny)", w.Op, name)
	case policy.Ask:
		return ask(ctx, s.q, w, s.p.ApprovalTimeout(), name)
	}
	return 0, nil
}
