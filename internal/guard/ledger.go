package guard

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/wire"
)

// NoLedger records nothing: the ledger of an executor without a store
// (tests of other stages).
type NoLedger struct{}

func (NoLedger) Reserve(context.Context, Write) error                { return nil }
func (NoLedger) Settle(context.Context, Write, *apitype.Error) error { return nil }
func (NoLedger) Refuse(context.Context, Write, *apitype.Error)       {}

// DiskLedger is the Ledger on the on-disk ledger.
type DiskLedger struct {
	Store *ledger.Ledger
	Log   *slog.Logger
}

// Reserve writes the row before anything is dispatched. A used id is
// DUPLICATE_OPERATION naming the original's outcome; a ledger that cannot
// write refuses the write (nothing dispatched): a write loupe cannot
// account for does not go out.
func (s DiskLedger) Reserve(ctx context.Context, w Write) error {
	var input string
	if b, err := json.Marshal(w.Input); err == nil && w.Input != nil {
		input = ledger.KeptInput(b, w.Secret)
	}
	err := s.Store.Reserve(ctx, ledger.Entry{ID: w.ID, Session: w.Session, Task: w.Task, Client: w.Client, Surface: w.Surface, Epoch: w.Epoch,
		Document: w.Document, Op: w.Op, Action: string(w.Action), Digest: w.Digest, Input: input, Locator: w.Locator})
	var dup *ledger.DuplicateError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &dup):
		o := dup.Original
		e := apitype.Errorf(apitype.DuplicateOperation, "operation %s was already used for %s (%s)", o.ID, o.Op, o.State)
		return e.Fix("its outcome stands: see it ({1}); a new write needs a new id", apitype.Step{Op: "ops show", Args: map[string]string{"operation_id": o.ID}})
	}
	return apitype.Wrap(apitype.Internal, err, "the operation ledger cannot record this write, so it was not sent: %v", err)
}

// Refuse records a refused write as a row settled not executed. A row
// that cannot be written (the id is taken: the refusal is of a reused id's
// request; the disk) is logged, never in the caller's way.
func (s DiskLedger) Refuse(ctx context.Context, w Write, e *apitype.Error) {
	if err := s.Reserve(ctx, w); err != nil {
		s.Log.Warn("recording a refused write", "operation", w.ID, "op", w.Op, "code", e.Code, "err", err)
		return
	}
	_ = s.Settle(ctx, w, e) // logged there
}

// Settle records the outcome. A failure to write it leaves the row
// reserved, which the next start reads as unknown: the honest answer; it
// is logged and returned (the settle stage tells the caller and tries
// again).
func (s DiskLedger) Settle(ctx context.Context, w Write, e *apitype.Error) error {
	state, code, reason := wire.OpExecuted, "", ""
	if e != nil {
		state, code, reason = wire.OpUnknown, string(e.Code), e.Message
		if e.NotExecuted {
			state = wire.OpNotExecuted
		}
	}
	if w.Opened != "" && w.Opened != w.Surface {
		if err := s.Store.Resurface(ctx, w.ID, w.Opened); err != nil {
			s.Log.Warn("naming the tab a write opened", "operation", w.ID, "op", w.Op, "err", err)
		}
	}
	err := s.Store.Settle(ctx, w.ID, state, code, reason)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ledger.ErrSettled):
		// Recorded already (as unknown, by a Close racing this write):
		// that outcome stands, and settling again would not change it.
		s.Log.Warn("settling an operation that was settled already", "operation", w.ID, "op", w.Op)
		return nil
	}
	s.Log.Error("settling an operation: it stays reserved, which reads as unknown, until settling succeeds", "operation", w.ID, "op", w.Op, "err", err)
	return err
}
