package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/ops"
)

// Write describes a write to the stages that guard it.
type Write struct {
	Op      string
	Action  ops.Action
	Session string
	Client  string
	Surface string // the caller's current surface ("" before its first)
	Input   any
}

// Policy decides whether a write may run: allow, or refuse with DENIED
// (or, once approvals exist, wait for a person's answer).
type Policy interface {
	Allow(ctx context.Context, w Write) error
}

// Ledger records every write: Reserve before anything is dispatched
// (refusing a duplicate), Settle with its outcome (err nil: executed).
// A write reserved and never settled is unknown, and never replayed.
type Ledger interface {
	Reserve(ctx context.Context, w Write) error
	Settle(ctx context.Context, w Write, err error)
}

// Gate refuses writes whose caller holds no current grant (NO_GRANT), to
// a tab a person has taken over (HUMAN_CONTROL) or whose epoch has moved
// on since the caller's snapshot.
type Gate interface {
	Check(ctx context.Context, w Write) error
}

// allowAll is the policy until approvals exist: every write may run.
type allowAll struct{}

func (allowAll) Allow(context.Context, Write) error { return nil }

// noLedger records nothing (until the operation ledger exists).
type noLedger struct{}

func (noLedger) Reserve(context.Context, Write) error { return nil }
func (noLedger) Settle(context.Context, Write, error) {}

// openGate lets every write through (until take-over exists).
type openGate struct{}

func (openGate) Check(context.Context, Write) error { return nil }
