package executor

import (
	"context"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/restore"
)

// Tabs across daemon restarts: package keeper keeps them and the id
// numbers (see its doc); these stages write them before each reply and
// load a restored placeholder tab an operation works in.

// tabsfileStage writes the tabs file on the way back, before the reply,
// if anything in it changed: the call may have opened, moved or closed
// tabs, or drawn ids (an id the reply hands out is on file before the
// caller has it).
type tabsfileStage struct{ x *Executor }

func (tabsfileStage) name() string { return "tabsfile" }

func (s tabsfileStage) enter(context.Context, *call) (func(*outcome), error) {
	if s.x.keeper == nil {
		return nil, nil
	}
	return func(*outcome) { s.x.keeper.Flush() }, nil
}

// restoreStage loads a placeholder the operation works in: the caller's
// tab, for an operation in it, or the surface it switches to. An
// operation that shows another document in the tab (open, preview) uses
// the placeholder up without loading it.
type restoreStage struct{ x *Executor }

func (restoreStage) name() string { return "restore" }

func (s restoreStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	x := s.x
	sw, switches := c.in.(ops.Switcher)
	switches = switches && c.op.Action == ops.ActTarget
	if x.keeper == nil || c.op.NoBrowser || (c.op.SessionWide && !switches) {
		return nil, nil
	}
	// A session's first call after a restart starts its browser here,
	// as the operation would: the tab it works in may be a placeholder.
	if !c.sess.Live() && !x.keeper.Keeps(c.sess.Name()) {
		return nil, nil
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	b, err := c.deps.Caller.Browser(ctx)
	if err != nil {
		return nil, nil // the operation itself will say what is wrong
	}
	var t *engine.Surface
	if switches {
		t, err = b.Surface(ctx, sw.SwitchTo())
	} else {
		t, err = c.deps.Caller.Tab(ctx)
	}
	if err != nil {
		return nil, nil
	}
	page, err := b.Surface(ctx, t.PageID())
	if err != nil {
		return nil, nil
	}
	if _, ok := restore.Pending(b, page.ID); !ok {
		return nil, nil
	}
	open := true
	if r, ok := c.in.(ops.Replacer); ok && r.Replaces() {
		open = false
	}
	err = restore.Load(ctx, b, page, open, func(file string) (string, error) {
		return x.previews.Allow(file, page.ID, x.grants.Owner(c.sess.Name(), page.ID), func(prefix string) bool {
			select {
			case <-page.Closed():
				return false
			default:
			}
			return strings.HasPrefix(page.URL(), prefix)
		})
	})
	if err == nil {
		return nil, nil
	}
	if _, ok := apitype.As(err); ok {
		return nil, err
	}
	return nil, apitype.Wrap(apitype.NavigationFailed, err, "%v", err).
		Fix("the tab shows what loaded, if anything: reload it ({1}), open another address ({2}) or close it ({3})",
			apitype.Step{Op: "reload"}, apitype.Step{Op: "open"}, apitype.Step{Op: "tab close"})
}
