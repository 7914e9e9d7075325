package executor

import (
	"context"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ops"
)

// confineStage keeps a confined caller (Request.Confined: a remote agent
// through the broker) to the tabs its own task opened, for reads as for
// writes. The owner gate lets an agent's task act in shared tabs — the
// session's first tab, a person's own — which is right for a local agent
// working beside its person and wrong for a remote one: a remote session
// may see and act on nothing but what it opened. So here a tab nobody
// owns is refused just like a tab another task owns (NO_GRANT, not
// executed). A call that opens a tab (tab new, open with new_tab) does
// not act in the caller's current tab and passes; the tab it opens is its
// task's (the effects stage). A list of the session's tabs (tabs) is
// cut to the caller's own, and so is a read of the operation ledger.
type confineStage struct{ r *grants.Registry }

func (confineStage) name() string { return "confine" }

func (s confineStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if c.req.Confined && !c.req.Person {
		if _, ok := c.op.NewOut().(ops.TaskFilter); ok {
			// The operation ledger: the caller reads its own task's.
			return func(o *outcome) {
				if f, ok := o.out.(ops.TaskFilter); ok && o.err == nil && !f.KeepTask(c.task) {
					o.out = nil
					o.err, _ = apitype.As(confined(c.task, "that operation is another task's"))
				}
			}, nil
		}
	}
	if !c.req.Confined || c.req.Person || !needsGrant(c.op) {
		return nil, nil
	}
	if o, ok := c.in.(ops.TabOpener); ok && o.OpensTab() {
		return nil, nil
	}
	if _, ok := c.op.NewOut().(ops.TabFilter); ok && c.op.SessionWide && !c.isWrite() {
		// A list of the session's tabs: the caller sees its own only.
		session := c.sess.Name()
		return func(o *outcome) {
			if f, ok := o.out.(ops.TabFilter); ok {
				f.KeepTabs(func(id string) bool { return s.r.Owner(session, id) == c.task })
			}
		}, nil
	}
	if t, ok := c.in.(ops.TabNamer); ok && t.NamedTab() != "" {
		p, err := c.pageByID(ctx, t.NamedTab())
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, confined(c.task, "it has no tab yet")
		}
		return nil, s.own(c, p)
	}
	// Everything else works in the caller's current tab (a session-wide
	// operation too: tab close with no id closes it).
	p, err := c.page(ctx)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, confined(c.task, "it has no tab yet")
	}
	return nil, s.own(c, p)
}

// own refuses a tab the caller's task does not own. A popup of one of
// its tabs is its own (grants.Registry.Check makes it so).
func (s confineStage) own(c *call, p pageView) error {
	session, page := c.sess.Name(), p.PageID()
	if err := s.r.Check(session, c.task, page, p.Opener()); err != nil {
		return confined(c.task, "tab "+page+" belongs to another task")
	}
	if s.r.Owner(session, page) != c.task {
		return confined(c.task, "tab "+page+" is not one it opened")
	}
	return nil
}

// owner is handlers.Deps.Own for a confined call: whether a surface is in
// a tab of the call's task, as own decides it.
func (s confineStage) owner(c *call) func(context.Context, string) bool {
	return func(ctx context.Context, id string) bool {
		p, err := c.pageByID(ctx, id)
		return err == nil && p != nil && s.own(c, p) == nil
	}
}

// confined is the refusal of a confined caller outside its own tabs.
func confined(task, why string) error {
	remote := strings.TrimPrefix(task, "remote:")
	return apitype.Errorf(apitype.NoGrant, "session %s may act only in the tabs it opened: %s; nothing was sent", remote, why).
		Fix("open a tab of your own first ({1})", apitype.Step{Op: "tab new"})
}
