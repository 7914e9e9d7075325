package wire

import (
	"fmt"
	"strings"
	"time"
)

// Grant is one task's grant on a session's browser.
type Grant struct {
	ID         string    `json:"grant" cap:"-"`
	Session    string    `json:"session" cap:"-"`
	Task       string    `json:"task" cap:"-"`
	Generation string    `json:"generation" cap:"-"`
	Tabs       []string  `json:"tabs" cap:"-"`
	Expires    time.Time `json:"expires"`
}

func (g Grant) line() string {
	tabs := "no tabs"
	if len(g.Tabs) > 0 {
		tabs = "tabs " + strings.Join(g.Tabs, " ")
	}
	return fmt.Sprintf("task %s in session %s: grant %s, %s, expires %s", g.Task, g.Session, g.ID, tabs, g.Expires.UTC().Format(time.RFC3339))
}

// TasksOut lists the tasks holding a grant.
type TasksOut struct {
	Grants []Grant `json:"grants"`
}

// Text is one line a grant.
func (o *TasksOut) Text() string {
	if len(o.Grants) == 0 {
		return "no task holds a grant"
	}
	ls := make([]string, len(o.Grants))
	for i, g := range o.Grants {
		ls[i] = g.line()
	}
	return strings.Join(ls, "\n")
}

// TaskEndOut says what ending a task revoked.
type TaskEndOut struct {
	Task    string  `json:"task" cap:"-"`
	Revoked []Grant `json:"revoked"`
}

// Text is one line.
func (o *TaskEndOut) Text() string {
	n := 0
	for _, g := range o.Revoked {
		n += len(g.Tabs)
	}
	return fmt.Sprintf("ended task %s: %d grants revoked, %d tabs released; its writes are refused from now on", o.Task, len(o.Revoked), n)
}
