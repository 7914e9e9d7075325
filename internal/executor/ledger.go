package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"

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

// ledgerStage is the Ledger stage on the on-disk ledger.
type ledgerStage struct{ l *ledger.Ledger }

// Reserve writes the row before anything is dispatched. A used id is
// DUPLICATE_OPERATION naming the original's outcome; a ledger that cannot
// write refuses the write (nothing dispatched): a write loupe cannot
// account for does not go out.
func (s ledgerStage) Reserve(ctx context.Context, w Write) error {
	var input string
	if b, err := json.Marshal(w.Input); err == nil && w.Input != nil {
		input = string(b)
		if w.Secret {
			input = withoutSecret(b)
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
func (s ledgerStage) Settle(ctx context.Context, w Write, e *apitype.Error) {
	state, code, reason := ledger.Executed, "", ""
	if e != nil {
		state, code, reason = ledger.Unknown, string(e.Code), e.Message
		if e.NotExecuted {
			state = ledger.NotExecuted
		}
	}
	if err := s.l.Settle(ctx, w.ID, state, code, reason); err != nil {
		log.Printf("loupe: settling operation %s: %v", w.ID, err)
	}
}

// opLog reads the ledger for the ops operations.
func (x *Executor) opLog() (*ledger.Ledger, error) {
	if x.store == nil {
		return nil, fmt.Errorf("this process keeps no operation ledger")
	}
	return x.store, nil
}

// withoutSecret is an input with its text taken out and marked secret:
// what is typed into a password field is kept nowhere.
func withoutSecret(in []byte) string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	m["text"], m["secret"] = "", true
	b, _ := json.Marshal(m)
	return string(b)
}
