package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
)

// A person's own browser (attach --chrome) is theirs: an agent works
// freely only in the tabs loupe opened there (and the popups of those).
// Anything else it does in one of the person's tabs — a read as much as
// a write, for what a person's tabs show is theirs — waits for the
// person's approval, as a write under an `ask` rule does, with nothing
// read or sent before it. A person's own calls (the dashboard) pass.

const personalRule = "a tab of the person's own browser that loupe did not open"

// personalStage asks the person before an operation works in one of
// their tabs; how long it waited counts as approval time.
type personalStage struct{ x *Executor }

func (personalStage) name() string { return "personal" }

func (s personalStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if c.req.Person || c.op.SessionWide || !c.sess.Personal() {
		return nil, nil
	}
	pctx, cancel := c.bounded(ctx)
	t, err := c.page(pctx)
	cancel()
	if err != nil || t == nil {
		return nil, nil // the operation itself will say what is wrong
	}
	page := t.PageID()
	if c.sess.Own(page) || c.sess.Own(t.Opener()) {
		return nil, nil
	}
	timeout := 2 * time.Minute
	if s.x.rules != nil {
		timeout = s.x.rules.ApprovalTimeout()
	}
	action := c.op.Action
	if !c.isWrite() {
		action = ops.ActRead
	}
	element, _ := inputFields(c.in)
	w := guard.Write{ID: apitype.NewOperationID(), Element: element, Op: c.op.Name, Action: action, Session: c.sess.Name(), Client: c.req.Client,
		Task: c.task, Surface: c.client.Current(), Page: page, Origin: originOf(t.URL()), Input: c.in, Digest: ledger.Digest(c.op.Name, c.in)}
	waited, err := guard.Ask(ctx, s.x.waiting, w, timeout, personalRule)
	c.approvedAfter += waited
	return nil, err
}
