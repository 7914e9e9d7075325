package executor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ledger"
)

// digest names what a write asked for: its operation and its input, so a
// person reading the ledger can tell two writes apart without their
// arguments (which may hold secrets) being stored.
func digest(op string, in any) string {
	b, _ := json.Marshal(in)
	h := sha256.Sum256(append([]byte(op+"\x00"), b...))
	return hex.EncodeToString(h[:8])
}

// Ledger records every write: Reserve before anything is dispatched
// (refusing a duplicate id), Settle with its outcome (e nil: executed;
// e.NotExecuted: certainly not; otherwise unknown). A write reserved and
// never settled is unknown, and never replayed.
type Ledger interface {
	Reserve(ctx context.Context, w Write) error
	Settle(ctx context.Context, w Write, e *apitype.Error)
}

// ledgerStage reserves a write in the ledger, last before it may run, so
// that a refused write leaves no row; settleStage settles it.
type ledgerStage struct{ l Ledger }

func (ledgerStage) name() string { return "ledger" }

func (s ledgerStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, stageTimeout)
	defer cancel()
	return nil, s.l.Reserve(ctx, c.write)
}

// noLedger records nothing: the ledger of an executor without a store
// (tests of other stages).
type noLedger struct{}

func (noLedger) Reserve(context.Context, Write) error          { return nil }
func (noLedger) Settle(context.Context, Write, *apitype.Error) {}

// diskLedger is the Ledger on the on-disk ledger.
type diskLedger struct {
	l   *ledger.Ledger
	log *slog.Logger
}

// Reserve writes the row before anything is dispatched. A used id is
// DUPLICATE_OPERATION naming the original's outcome; a ledger that cannot
// write refuses the write (nothing dispatched): a write loupe cannot
// account for does not go out.
func (s diskLedger) Reserve(ctx context.Context, w Write) error {
	var input string
	if b, err := json.Marshal(w.Input); err == nil && w.Input != nil {
		input = withoutFileData(b)
		if w.Secret {
			input = withoutSecret([]byte(input))
		}
	}
	err := s.l.Reserve(ctx, ledger.Entry{ID: w.ID, Session: w.Session, Task: w.Task, Client: w.Client, Surface: w.Surface, Epoch: w.Epoch,
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

// Settle records the outcome. A failure to write it leaves the row
// reserved, which the next start reads as unknown: the honest answer.
func (s diskLedger) Settle(ctx context.Context, w Write, e *apitype.Error) {
	state, code, reason := ledger.Executed, "", ""
	if e != nil {
		state, code, reason = ledger.Unknown, string(e.Code), e.Message
		if e.NotExecuted {
			state = ledger.NotExecuted
		}
	}
	if err := s.l.Settle(ctx, w.ID, state, code, reason); err != nil {
		s.log.Error("settling an operation: it stays reserved, which the next start reads as unknown", "operation", w.ID, "op", w.Op, "err", err)
	}
}

// withoutSecret is an input with its text taken out and marked secret:
// what is typed into a password field is kept nowhere.
// withoutFileData keeps, of the files an upload sent, their names and
// sizes, not their bytes: the ledger says what was handed to the page
// (history --as script asks for the files by name), and a row does not
// carry megabytes.
func withoutFileData(in []byte) string {
	if !bytes.Contains(in, []byte(`"contents"`)) {
		return string(in)
	}
	var m map[string]json.RawMessage
	var files []struct {
		Name string `json:"name"`
		Data []byte `json:"data"`
	}
	if json.Unmarshal(in, &m) != nil || json.Unmarshal(m["contents"], &files) != nil {
		return string(in)
	}
	type kept struct {
		Name string `json:"name"`
		Size int    `json:"size"`
	}
	out := make([]kept, len(files))
	for i, f := range files {
		out[i] = kept{f.Name, len(f.Data)}
	}
	m["contents"], _ = json.Marshal(out)
	b, _ := json.Marshal(m)
	return string(b)
}

func withoutSecret(in []byte) string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	m["text"], m["secret"] = "", true
	b, _ := json.Marshal(m)
	return string(b)
}
