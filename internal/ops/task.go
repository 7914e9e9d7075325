package ops

import (
	"context"

	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Grants are the tasks' grants (see package grants).
type Grants interface {
	List() []grants.Grant
	End(task string) []grants.Grant
	Owner(session, page string) string
}

// TaskIDIn names a task.
type TaskIDIn struct {
	Task string `json:"task" arg:"TASK" help:"a task id, as listed by tasks"`
}

// Validate checks the id is given.
func (in *TaskIDIn) Validate() error {
	if in.Task == "" {
		return usage("missing %s", fld("task"))
	}
	return nil
}

// TasksOut lists the tasks holding a grant.
type TasksOut = wire.TasksOut

// TaskEndOut says what ending a task revoked.
type TaskEndOut = wire.TaskEndOut

func wireGrants(gs []grants.Grant) []wire.Grant {
	out := make([]wire.Grant, len(gs))
	for i, g := range gs {
		out[i] = wire.Grant{ID: g.ID, Session: g.Session, Task: g.Task, Generation: g.Generation, Tabs: g.Tabs, Expires: g.Expires}
	}
	return out
}

func taskOps() []*Op {
	list := define("tasks", "list the tasks holding a grant, with the tabs each owns", Read, actTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*TasksOut, error) {
			return &TasksOut{Grants: wireGrants(env.Grants().List())}, nil
		}).sessionWide().noMCP("a person sees and ends tasks; an agent is one")
	end := define("task end", "end a task: its grants are revoked, its tabs released, and its writes refused (NO_GRANT) from now on", Write, actTimeout,
		func(ctx context.Context, env Env, in *TaskIDIn) (*TaskEndOut, error) {
			return &TaskEndOut{Task: in.Task, Revoked: wireGrants(env.Grants().End(in.Task))}, nil
		}).as(ActControl).sessionWide().noMCP("a person ends tasks; an agent is one")
	for _, o := range []*Op{list, end} {
		o.NoBrowser = true
	}
	return []*Op{list, end}
}
