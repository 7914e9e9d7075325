package ops

import (
	"github.com/loupe-dev/loupe/internal/wire"
)

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

func taskOps() []*Op {
	return []*Op{
		describe[NoIn, TasksOut]("tasks", "list the tasks holding a grant, with the tabs each owns", Read, actTimeout).sessionWide().noBrowser().noMCP("a person sees and ends tasks; an agent is one"),
		describe[TaskIDIn, TaskEndOut]("task end", "end a task: its grants are revoked, its tabs released, and its writes refused (NO_GRANT) from now on", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP("a person ends tasks; an agent is one"),
	}
}
