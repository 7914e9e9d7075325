package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/tabturn"
)

// humanStage refuses an operation on a tab that cannot take it: one whose
// renderer crashed (TAB_CRASHED), one held in a dialog of a flood, which
// can only be left (PAGE_BLOCKED), and one a person has taken over
// (HUMAN_CONTROL) — reads as well as writes: while a person has the tab,
// the agent sees none of what they do. Operations on the session (lists,
// logs, tab management, take-over itself) pass, and so do a person's own
// calls to a tab they hold; a call without a running browser has no tab
// to refuse.
type humanStage struct{}

func (humanStage) name() string { return "human" }

func (humanStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if c.op.SessionWide {
		return nil, nil
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	t, err := c.page(ctx)
	if err != nil || t == nil {
		return nil, nil // the operation itself will say what is wrong
	}
	if t.IsCrashed() {
		return nil, tabturn.CrashError(t.PageID(), true)
	}
	if t.Blocked() && c.op.Action != ops.ActNavigate && c.op.Action != ops.ActClose {
		return nil, Classify(engine.ErrPageBlocked, ops.Read)
	}
	if !c.sess.AnyHuman() || c.req.Person {
		return nil, nil
	}
	mode, epoch := c.sess.Mode(t.PageID())
	c.epoch = epoch
	if c.sess.Crashed(t.PageID()) {
		return nil, tabturn.CrashError(t.PageID(), false)
	}
	if mode == sessions.ModeHuman {
		return nil, apitype.Errorf(apitype.HumanControl, "a person has taken over tab %s (epoch %d); nothing was read or sent", t.PageID(), epoch).
			Fix("wait until they hand it back, then take a new snapshot ({1}): its earlier refs will be stale", apitype.Step{Op: "snapshot"})
	}
	return nil, nil
}
