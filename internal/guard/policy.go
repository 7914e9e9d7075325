package guard

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Ask holds a write for a person's answer (package approvals).
func Ask(ctx context.Context, q *approvals.Queue, w Write, timeout time.Duration, rule string) (time.Duration, error) {
	a := wire.Approval{OperationID: w.ID, Op: w.Op, Action: string(w.Action), Session: w.Session, Client: w.Client,
		SurfaceID: w.Surface, Page: w.Page, Origin: w.Origin, Digest: w.Digest, Task: w.Task, Target: w.Element, Locator: w.Locator, Element: w.ElementLine}
	// What will be sent, as the ledger keeps it: a secret's text masked,
	// an upload's files by name and size.
	if b, err := json.Marshal(w.Input); err == nil && w.Input != nil {
		a.Input = json.RawMessage(ledger.KeptInput(b, w.Secret))
	}
	return q.Ask(ctx, a, timeout, rule)
}

// AllowAll is the policy of an executor without rules: every write may
// run.
type AllowAll struct{}

func (AllowAll) Allow(context.Context, Write) (time.Duration, error) { return 0, nil }

// RulesPolicy is the Policy of the rules in force.
type RulesPolicy struct {
	Rules *policy.Policy
	Queue *approvals.Queue
}

// Allow decides a write: allowed, denied (DENIED naming the rule), or held
// for a person's answer.
func (s RulesPolicy) Allow(ctx context.Context, w Write) (time.Duration, error) {
	d, rule := s.Rules.Decide(w.Op, string(w.Action), w.Origin)
	name := rule.Name()
	switch d {
	case policy.Deny:
		return 0, apitype.Errorf(apitype.Denied, "the approval policy denies %s (rule %s: deny)", w.Op, name)
	case policy.Ask:
		return Ask(ctx, s.Queue, w, s.Rules.ApprovalTimeout(), name)
	}
	return 0, nil
}
