package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/tabturn"
)

// runStage runs the operation's handler, by the operation's deadline. A
// write's run is cut short, at its next step, when a person takes its tab
// over or its renderer crashes (tabturn.Watch). It is the last stage: its
// leave, the first, hands the result to the stages before it.
type runStage struct{}

func (runStage) name() string { return "run" }

func (runStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	c.ran = time.Now()
	if c.isWrite() {
		var stop func()
		ctx, stop = tabturn.Watch(ctx, c.sess, turn(c.write))
		defer stop()
	}
	out, err := c.handler.Run(ctx, c.deps, c.in)
	var cause error
	if err != nil {
		cause = context.Cause(ctx)
	}
	return func(o *outcome) { o.out, o.raw, o.cause = out, err, cause }, nil
}
