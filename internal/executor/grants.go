package executor

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/preview"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ops"
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

// useGrant is the grant stage before anything else runs: a write needs
// its task's current grant (NO_GRANT, nothing sent, otherwise); a read
// mints or renews one.
func (x *Executor) useGrant(c *call, task, presented string) error {
	if !needsGrant(c.op) || c.person {
		return nil // a person needs no grant: every tab is theirs to act in
	}
	g, err := x.grants.Use(c.sess.Name(), task, presented, c.kind == ops.Write)
	if err != nil {
		return noGrant(err)
	}
	c.grant = g.ID
	return nil
}

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

// ownOpened gives a task the tab its write opened (tab new), which is the
// caller's current surface after it.
func (x *Executor) ownOpened(ctx context.Context, c *call) {
	if o, ok := c.in.(ops.TabOpener); c.write.Task == "" || !ok || !o.OpensTab() {
		return
	}
	if t, err := c.env.Tab(ctx); err == nil {
		x.grants.Own(c.sess.Name(), c.write.Task, t.PageID())
	}
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
