package executor

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
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
		return nil, noGrant(err)
	}
	c.grant = g.ID
	return nil, nil
}

// noGrant is a grant refusal as the registry error.
func noGrant(err error) error {
	var r *grants.Refusal
	if !errors.As(err, &r) {
		return err
	}
	e := apitype.Errorf(apitype.NoGrant, "%s; nothing was sent", r.Why)
	if r.Ended {
		return e.Fix("stop: a person ended this task; new work needs a task id of its own")
	}
	if r.Owner != "" {
		return e.Fix("work in a tab of your own ({1}); a person can end task "+r.Owner+" to free it", apitype.Step{Op: "tab new"})
	}
	return e.Fix("take a new snapshot ({1}) to work under a new grant: the old refs are gone", apitype.Step{Op: "snapshot"})
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
