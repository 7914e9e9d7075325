package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Write describes a write to the stages that guard it.
type Write struct {
	ID      string // the operation id, unique forever
	Op      string
	Action  ops.Action
	Session string
	Client  string
	Task    string // the caller's task ("" for a person's own commands)
	Surface string // the caller's current surface ("" before its first)
	Epoch   int64  // of the caller's tab (its take-overs so far)
	Page    string // the caller's tab (its page's surface id), when known
	Opener  string // the tab that opened Page, if any
	// Target is the tab the input names (tab close ID), when it names one;
	// TargetOpener the tab that opened it.
	Target, TargetOpener string
	Document             string // the document token the write was planned on
	// SessionWide: the operation works on the session, not in the
	// caller's tab (tab new, switch).
	SessionWide bool
	Origin      string // of the page the write acts on (or opens), when known
	Input       any
	Digest      string // of the op and its input
}

// Policy decides whether a write may run: allow it, refuse it (DENIED), or
// hold it for a person's answer; waited says how long it was held.
type Policy interface {
	Allow(ctx context.Context, w Write) (waited time.Duration, err error)
}

// Ledger records every write: Reserve before anything is dispatched
// (refusing a duplicate id), Settle with its outcome (e nil: executed;
// e.NotExecuted: certainly not; otherwise unknown). A write reserved and
// never settled is unknown, and never replayed.
type Ledger interface {
	Reserve(ctx context.Context, w Write) error
	Settle(ctx context.Context, w Write, e *apitype.Error)
}

// Gate refuses writes whose caller holds no current grant (NO_GRANT), to
// a tab a person has taken over (HUMAN_CONTROL) or whose epoch has moved
// on since the caller's snapshot.
type Gate interface {
	Check(ctx context.Context, w Write) error
}

// allowAll is the policy until approvals exist: every write may run.
type allowAll struct{}

func (allowAll) Allow(context.Context, Write) (time.Duration, error) { return 0, nil }

// noLedger records nothing (until the operation ledger exists).
type noLedger struct{}

func (noLedger) Reserve(context.Context, Write) error          { return nil }
func (noLedger) Settle(context.Context, Write, *apitype.Error) {}

// openGate lets every write through (until take-over exists).
type openGate struct{}

func (openGate) Check(context.Context, Write) error { return nil }
