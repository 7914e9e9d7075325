// Package guard holds what guards a write, apart from the executor's
// pipeline that calls it: the description of a write (Write) and the
// three guards the pipeline asks about it — the approval policy (Policy),
// the task gate (Gate) and the operation ledger (Ledger) — with loupe's
// own implementations of each. Tests of the pipeline give fakes of the
// interfaces; the implementations are tested here, alone.
package guard

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
	Surface string // the surface the write acts on (see where); "" for none
	// Opened is the tab the write opened, once it ran (tab new, open
	// --partition): the ledger names it as the write's surface.
	Opened string
	Epoch  int64  // of the caller's tab (its take-overs so far)
	Page   string // the caller's tab (its page's surface id), when known
	Opener string // the tab that opened Page, if any
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
	// Person: the write is the person's own, at the dashboard; a tab
	// they hold does not stop it.
	Person bool
	// Element is the element the input names (its "ref": a ref or a
	// locator); Locator its stable locator, as the ref table has it for
	// a ref (kept in the ledger for history).
	Element, Locator string
	// ElementLine is how the snapshot printed the element a ref names
	// (role "name" [ref=eN]), for a person approving the write.
	ElementLine string
	// Secret: the write types into a password field; its text is kept
	// nowhere (the ledger keeps the rest of its input).
	Secret bool
}

// Policy decides whether a write may run: allow it, refuse it (DENIED), or
// hold it for a person's answer; waited says how long it was held.
type Policy interface {
	Allow(ctx context.Context, w Write) (waited time.Duration, err error)
}

// Gate refuses writes the caller's task may not make where they act
// (NO_GRANT: a tab another task owns); the executor's own is grantGate.
type Gate interface {
	Check(ctx context.Context, w Write) error
}

// Ledger records every write: Reserve before anything is dispatched
// (refusing a duplicate id), Settle with its outcome (e nil: executed;
// e.NotExecuted: certainly not; otherwise unknown). A write reserved and
// never settled is unknown, and never replayed.
type Ledger interface {
	Reserve(ctx context.Context, w Write) error
	// Settle returns an error when the outcome could not be recorded:
	// the row stays reserved, which reads as unknown.
	Settle(ctx context.Context, w Write, e *apitype.Error) error
	// Refuse records a write a stage refused before it was reserved:
	// not executed, with the refusal's code.
	Refuse(ctx context.Context, w Write, e *apitype.Error)
}
