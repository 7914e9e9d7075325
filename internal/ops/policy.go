package ops

import (
	"context"

	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Approvals are the writes waiting for a person's answer.
type Approvals interface {
	List() []wire.Approval
	Answer(id string, approve bool) (wire.Approval, error)
}

// PolicySetIn changes one rule, or the approval timeout.
type PolicySetIn struct {
	Key      string `json:"key" arg:"CLASS_OR_OP" help:"an action class (navigate, input, upload, download, eval, close, target, session, dialogs) or an operation (click), or approval-timeout"`
	Decision string `json:"decision" arg:"DECISION" help:"allow, ask or deny (for approval-timeout: a duration such as 30s)"`
	Origin   string `json:"origin,omitempty" flag:"origin" meta:"PATTERN" help:"only for pages whose origin matches PATTERN, e.g. https://*.bank.example"`
}

// Validate checks the decision (or the timeout).
func (in *PolicySetIn) Validate() error {
	if in.Key == "" {
		return usage("missing %s", fld("key"))
	}
	if in.Key == "approval-timeout" {
		var m Millis
		if err := m.UnmarshalText([]byte(in.Decision)); err != nil || m <= 0 {
			return usage("approval-timeout %q: want a duration such as 30s", in.Decision)
		}
		return nil
	}
	if _, err := policy.ParseDecision(in.Decision); err != nil {
		return usage("%s %v", fld("decision"), err)
	}
	return nil
}

// ApprovalIDIn names a waiting write.
type ApprovalIDIn struct {
	ID string `json:"approval_id" arg:"ID" help:"an approval id, as listed by approvals (a1, a2, …)"`
}

// Validate checks the id is given.
func (in *ApprovalIDIn) Validate() error {
	if in.ID == "" {
		return usage("missing %s", fld("approval_id"))
	}
	return nil
}

// PolicyOut is the approval policy in force.
type PolicyOut = wire.PolicyOut

// ApprovalsOut lists the writes waiting for a person.
type ApprovalsOut = wire.ApprovalsOut

// AnswerOut says how a waiting write was answered.
type AnswerOut = wire.AnswerOut

func policyOut(p *policy.Policy) *PolicyOut {
	out := &PolicyOut{Rules: []wire.PolicyRule{}, ApprovalTimeout: p.ApprovalTimeout().String()}
	for _, r := range p.Rules() {
		out.Rules = append(out.Rules, wire.PolicyRule{Key: r.Key, Origin: r.Origin, Decision: string(r.Decision)})
	}
	return out
}

func policyOps() []*Op {
	why := "a person sets the policy and answers approvals; an agent must not approve its own writes"
	show := define("policy", "show the approval policy: which writes are allowed, asked for or denied", Read, actTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*PolicyOut, error) {
			p, err := env.Rules()
			if err != nil {
				return nil, err
			}
			return policyOut(p), nil
		}).sessionWide().noMCP(why)
	set := define("policy set", "allow, ask for or deny a class of writes or one operation (optionally on pages of an origin)", Write, actTimeout,
		func(ctx context.Context, env Env, in *PolicySetIn) (*PolicyOut, error) {
			p, err := env.Rules()
			if err != nil {
				return nil, err
			}
			if in.Key == "approval-timeout" {
				var m Millis
				_ = m.UnmarshalText([]byte(in.Decision))
				err = p.SetApprovalTimeout(m.Duration())
			} else {
				err = p.Set(policy.Rule{Key: in.Key, Origin: in.Origin, Decision: policy.Decision(in.Decision)})
			}
			if err != nil {
				return nil, err
			}
			return policyOut(p), nil
		}).as(ActControl).sessionWide().noMCP(why)
	list := define("approvals", "list the writes waiting for a person's approval", Read, actTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*ApprovalsOut, error) {
			return &ApprovalsOut{Approvals: env.Approvals().List()}, nil
		}).sessionWide().noMCP(why)
	answer := func(approve bool) func(ctx context.Context, env Env, in *ApprovalIDIn) (*AnswerOut, error) {
		return func(ctx context.Context, env Env, in *ApprovalIDIn) (*AnswerOut, error) {
			a, err := env.Approvals().Answer(in.ID, approve)
			if err != nil {
				return nil, err
			}
			return &AnswerOut{Approval: a, Approved: approve}, nil
		}
	}
	approve := define("approve", "let a waiting write go out", Write, actTimeout, answer(true)).as(ActControl).sessionWide().noMCP(why)
	deny := define("deny", "refuse a waiting write: it is not sent (DENIED)", Write, actTimeout, answer(false)).as(ActControl).sessionWide().noMCP(why)
	for _, o := range []*Op{show, set, list, approve, deny} {
		o.NoBrowser = true
	}
	return []*Op{show, set, list, approve, deny}
}
