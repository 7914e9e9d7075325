package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
)

// A person's own browser (attach --chrome) is theirs: an agent works
// freely only in the tabs loupe opened there (and the popups of those).
// Anything else it does in one of the person's tabs — a read as much as
// a write, for what a person's tabs show is theirs — waits for the
// person's approval, as a write under an `ask` rule does, with nothing
// read or sent before it. A person's own calls (the dashboard) pass.

const personalRule = "a tab of the person's own browser that loupe did not open"

// personalGate asks the person before an operation works in one of their
// tabs. It returns how long it waited.
func (x *Executor) personalGate(ctx context.Context, c *call) (time.Duration, error) {
	if c.person || c.op.NoBrowser || c.op.SessionWide || !c.sess.Personal() {
		return 0, nil
	}
	t, err := c.env.Tab(ctx)
	if err != nil {
		return 0, nil // the operation itself will say what is wrong
	}
	page := t.PageID()
	if c.sess.Own(page) || c.sess.Own(surface.Opener(t)) {
		return 0, nil
	}
	timeout := 2 * time.Minute
	if x.rules != nil {
		timeout = x.rules.ApprovalTimeout()
	}
	action := c.op.Action
	if c.kind == ops.Read {
		action = ops.ActRead
	}
	element, _ := inputFields(c.in)
	w := Write{ID: apitype.NewOperationID(), Element: element, Op: c.op.Name, Action: action, Session: c.sess.Name(), Client: c.client.ID(),
		Task: c.task, Surface: c.client.Current(), Page: page, Origin: originOf(t.URL()), Input: c.in, Digest: digest(c.op.Name, c.in)}
	return x.waiting.ask(ctx, w, timeout, personalRule)
}

// markOwn records the tab a write opened as loupe's own in its session.
func (x *Executor) markOwn(ctx context.Context, c *call) {
	if o, ok := c.in.(ops.TabOpener); !ok || !o.OpensTab() {
		return
	}
	if t, err := c.env.Tab(ctx); err == nil {
		c.sess.MarkOwn(t.PageID())
	}
}
