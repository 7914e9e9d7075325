package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/guard"
)

// ledgerStage reserves a write in the ledger, last before it may run (a
// refusal before it is recorded by refusalsStage); settleStage settles it.
type ledgerStage struct{ l guard.Ledger }

func (ledgerStage) name() string { return "ledger" }

func (s ledgerStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, stageTimeout)
	defer cancel()
	if err := s.l.Reserve(ctx, c.write); err != nil {
		return nil, err
	}
	c.reserved = true
	return nil, nil
}
