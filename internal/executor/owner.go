package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
)

// ownerStage is the gate: a write of an agent acts only where its task
// may. A person's own commands and calls pass.
type ownerStage struct{ gate guard.Gate }

func (ownerStage) name() string { return "owner" }

func (s ownerStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || c.op.Action == ops.ActControl || c.req.Person {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, stageTimeout)
	defer cancel()
	return nil, s.gate.Check(ctx, c.write)
}

// stageTimeout bounds the gate and the ledger's reservation.
const stageTimeout = 10 * time.Second
