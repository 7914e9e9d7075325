package handlers

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/settings"
	"github.com/loupe-dev/loupe/internal/wire"
)

func policyOut(p *policy.Policy) *ops.PolicyOut {
	out := &ops.PolicyOut{Rules: []wire.PolicyRule{}, ApprovalTimeout: p.ApprovalTimeout().String()}
	for _, r := range p.Rules() {
		out.Rules = append(out.Rules, wire.PolicyRule{Key: r.Key, Origin: r.Origin, Decision: string(r.Decision)})
	}
	return out
}

func policyHandlers() map[string]Handler {
	answer := func(approve bool) Handler {
		return Waiting(func(ctx context.Context, a Approvals, in *ops.ApprovalIDIn) (*ops.AnswerOut, error) {
			ap, err := a.Answer(in.ID, approve)
			if err != nil {
				return nil, err
			}
			return &ops.AnswerOut{Approval: ap, Approved: approve}, nil
		})
	}
	return map[string]Handler{
		"policy": Policy(func(ctx context.Context, p *policy.Policy, _ *ops.NoIn) (*ops.PolicyOut, error) {
			return policyOut(p), nil
		}),
		"policy set": Policy(func(ctx context.Context, p *policy.Policy, in *ops.PolicySetIn) (*ops.PolicyOut, error) {
			var err error
			if d, ok := in.Timeout(); ok {
				err = p.SetApprovalTimeout(d)
			} else {
				err = p.Set(policy.Rule{Key: in.Key, Origin: in.Origin, Decision: policy.Decision(in.Decision)})
			}
			if err != nil {
				return nil, err
			}
			return policyOut(p), nil
		}),
		"policy unset": Policy(func(ctx context.Context, p *policy.Policy, in *ops.PolicyUnsetIn) (*ops.PolicyOut, error) {
			if err := p.Unset(in.Key, in.Origin); errors.Is(err, policy.ErrNoRule) {
				r := policy.Rule{Key: in.Key, Origin: in.Origin}
				return nil, apitype.Errorf(apitype.BadInput, "the policy has no rule for %s", r.Name()).
					Fix("list the rules ({1}) and name one as it lists it", apitype.Step{Op: "policy"})
			} else if err != nil {
				return nil, err
			}
			return policyOut(p), nil
		}),
		"policy reset": Policy(func(ctx context.Context, p *policy.Policy, _ *ops.NoIn) (*ops.PolicyOut, error) {
			if err := p.Reset(); err != nil {
				return nil, err
			}
			return policyOut(p), nil
		}),
		"approvals": Waiting(func(ctx context.Context, a Approvals, _ *ops.NoIn) (*ops.ApprovalsOut, error) {
			return &ops.ApprovalsOut{Approvals: a.List()}, nil
		}),
		"approve": answer(true),
		"deny":    answer(false),
	}
}

func settingsOut(s *settings.Store, v settings.Settings) *ops.SettingsOut {
	return &ops.SettingsOut{File: s.Path(), ControlEnabled: v.ControlEnabled, IgnoreCertificateErrors: v.IgnoreCertificateErrors}
}

func settingsHandlers() map[string]Handler {
	clearWith := func(do func(context.Context, *engine.Browser) error, cleared, kept string) Handler {
		return Func(func(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.ClearedOut, error) {
			return clear(ctx, d, do, cleared, kept)
		})
	}
	return map[string]Handler{
		"settings": Settings(func(ctx context.Context, s *settings.Store, _ *ops.NoIn) (*ops.SettingsOut, error) {
			v, err := s.Get()
			if err != nil {
				return nil, err
			}
			return settingsOut(s, v), nil
		}),
		"settings set": Settings(func(ctx context.Context, s *settings.Store, in *ops.SettingsSetIn) (*ops.SettingsOut, error) {
			v, err := s.Set(in.Key, in.Value)
			if err != nil {
				return nil, err
			}
			return settingsOut(s, v), nil
		}),
		"settings clear-cache": clearWith(surface.ClearCache, "the HTTP cache, Cache Storage and service workers", "cookies and site data; temp partitions"),
		"settings clear-data":  clearWith(surface.ClearAllData, "all data (cookies, storage, caches, service workers)", "temp partitions"),
	}
}

// clear clears the shared partition of the session's own browser; an
// attached browser's data is its owner's, never loupe's to clear.
func clear(ctx context.Context, d *Deps, do func(context.Context, *engine.Browser) error, cleared, kept string) (*ops.ClearedOut, error) {
	b, err := d.Caller.Browser(ctx)
	if err != nil {
		return nil, err
	}
	if !b.Launched() {
		return nil, apitype.Errorf(apitype.Denied, "session %s is attached to a browser loupe did not start: its data is its owner's; nothing was cleared", d.Session).
			Fix("clear it in that browser's own settings, or use a session loupe launches")
	}
	if err := do(ctx, b); err != nil {
		return nil, err
	}
	return &ops.ClearedOut{Session: d.Session, Cleared: cleared, Kept: kept}, nil
}
