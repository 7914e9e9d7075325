package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/preview"
)

// DefaultTask is the task of a caller that names none: its client id, or
// "cli" for the CLI (whose client id is "").
func DefaultTask(client string) string {
	if client == "" {
		return "cli"
	}
	return client
}

// needsGrant reports whether an operation works under a task's grant: the
// operations on the browser. A person's own commands (take-over, policy,
// approvals, ledger reads) and the operations that need no browser do not.
func needsGrant(op *ops.Op) bool { return !op.NoBrowser && op.Action != ops.ActControl }

// grantStage is the task's grant: a write needs its task's current grant
// (NO_GRANT, nothing sent, otherwise); a read mints or renews one. A
// person needs none: every tab is theirs to act in.
type grantStage struct{ r *grants.Registry }

func (grantStage) name() string { return "grant" }

func (s grantStage) enter(_ context.Context, c *call) (func(*outcome), error) {
	if !needsGrant(c.op) || c.req.Person {
		return nil, nil
	}
	g, err := s.r.Use(c.sess.Name(), c.task, c.req.Grant, c.isWrite())
	if err != nil {
		return nil, guard.NoGrant(err)
	}
	c.grant = g.ID
	return nil, nil
}

// taskEnder is the grant registry as the task operations see it: ending a
// task is an event.
type taskEnder struct {
	*grants.Registry
	events   *events.Bus
	previews *preview.Server
}

func (t taskEnder) End(task string) []grants.Grant {
	gs := t.Registry.End(task)
	t.previews.EndTask(task) // its local previews end with it
	t.events.Publish(events.Event{Kind: events.TaskEnded, Task: task})
	return gs
}
