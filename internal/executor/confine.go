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
// task's (the effects stage).
type confineStage struct{ r *grants.Registry }

func (confineStage) name() string { return "confine" }

func (s confineStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.req.Confined || c.req.Person || !needsGrant(c.op) {
		return nil, nil
	}
	if o, ok := c.in.(ops.TabOpener); ok && o.OpensTab() {
		return nil, nil
	}
	session := c.sess.Name()
	if t, ok := c.in.(ops.TabNamer); ok && t.NamedTab() != "" {
		return nil, s.own(session, c.task, t.NamedTab())
	}
	// Everything else works in the caller's current tab (a session-wide
	// operation too: tab close with no id closes it).
	if !c.sess.Live() {
		return nil, confined(c.task, "it has no tab yet")
	}
	p, err := c.page(ctx)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, confined(c.task, "it has no tab yet")
	}
	return nil, s.own(session, c.task, p.PageID())
}

// own refuses a tab the task does not own.
func (s confineStage) own(session, task, page string) error {
	// A surface id may name a frame or view inside a tab; the registry
	// knows tabs by their page id, and a confined caller's targets are tabs.
	if owner := s.r.Owner(session, page); owner != task {
		why := "it belongs to another task"
		if owner == "" {
			why = "no task of yours opened it"
		}
		return confined(task, "tab "+page+": "+why)
	}
	return nil
}

// confined is the refusal of a confined caller outside its own tabs.
func confined(task, why string) error {
	remote := strings.TrimPrefix(task, "remote:")
	return apitype.Errorf(apitype.NoGrant, "session %s may act only in the tabs it opened: %s; nothing was sent", remote, why).
		Fix("open a tab of your own first ({1})", apitype.Step{Op: "tab new"})
}
