package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Gate refuses writes the caller's task may not make where they act
// (NO_GRANT: a tab another task owns); the executor's own is grantGate.
type Gate interface {
	Check(ctx context.Context, w Write) error
}

// ownerStage is the gate: a write of an agent acts only where its task
// may. A person's own commands and calls pass.
type ownerStage struct{ gate Gate }

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

// grantGate is the Gate on the grant registry: a write acts only on tabs
// no other live task owns — the tab it acts in (unless the operation works
// on the session, as switching tabs does) and the tab it names.
type grantGate struct{ r *grants.Registry }

func (g grantGate) Check(_ context.Context, w Write) error {
	if w.Task == "" {
		return nil
	}
	if !w.SessionWide {
		if err := g.r.Check(w.Session, w.Task, w.Page, w.Opener); err != nil {
			return noGrant(err)
		}
	}
	if err := g.r.Check(w.Session, w.Task, w.Target, w.TargetOpener); err != nil {
		return noGrant(err)
	}
	return nil
}
