package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/tabturn"
)

// laneStage waits for a write's turn in its tab's lane — after the writes
// before it have run, by the operation's deadline — and leaves the lane
// once the call is done (its report taken). A write that waits has sent
// nothing: a take-over meanwhile ends it, not executed.
type laneStage struct{ l *tabturn.Lanes }

func (laneStage) name() string { return "lane" }

func (s laneStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || c.op.Action == ops.ActControl {
		return nil, nil
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	leave, err := s.l.Enter(ctx, c.sess, turn(c.write))
	if err != nil {
		return nil, err
	}
	return func(*outcome) { leave() }, nil
}

// turn is what a write's turn on its tab depends on.
func turn(w guard.Write) tabturn.Write {
	return tabturn.Write{Op: w.Op, Page: w.Page, Epoch: w.Epoch, Person: w.Person, SessionWide: w.SessionWide}
}
