package mcpserver

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// renderer writes recovery advice as tool calls (apitype.Renderer).
type renderer struct{ s *Server }

// toolFor is the tool that runs an operation (the first by name when
// several do) and the operation's member in it.
func (s *Server) toolFor(op string) (*tool, member, bool) {
	for _, t := range sortedTools(s.tools) {
		for _, m := range t.members {
			if m.op.Name == op {
				return t, m, true
			}
		}
	}
	return nil, member{}, false
}

// Step renders a call as the tool call that makes it, with its arguments
// as JSON.
func (r renderer) Step(st apitype.Step) string {
	t, m, ok := r.s.toolFor(st.Op)
	if !ok {
		return "`loupe " + st.Op + "` in a shell"
	}
	args := map[string]any{}
	if len(t.members) > 1 && !m.t.Default {
		args[t.sel] = m.t.Value
	}
	for k, v := range st.Args {
		args[k] = typed(t, k, v)
	}
	if len(args) == 0 {
		return t.tool.Name
	}
	b, _ := json.Marshal(args)
	return t.tool.Name + " " + string(b)
}

// typed gives a step's argument the JSON type of the tool's field.
func typed(t *tool, k, v string) any {
	p := t.props[k]
	if p == nil {
		return v
	}
	switch p.Type {
	case "boolean":
		if b, err := strconv.ParseBool(v); err == nil {
			return b
		}
	case "integer", "number":
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			return n
		}
	case "array":
		return []string{v}
	}
	return v
}

// Field is the argument's own name.
func (r renderer) Field(_, name string) string { return name }

// Timeout advises a longer timeout_ms where the tool takes one.
func (r renderer) Timeout(op string, ms int64) string {
	if t, _, ok := r.s.toolFor(op); ok {
		if _, has := t.props["timeout_ms"]; has {
			if ms > 0 {
				return fmt.Sprintf("raise timeout_ms (it was %d)", ms)
			}
			return "raise timeout_ms"
		}
	}
	return "wait for what you expect with browser_wait, then try again"
}

// Help points at the tool's input schema.
func (r renderer) Help(op string) string {
	if t, _, ok := r.s.toolFor(op); ok {
		return "see the input schema of " + t.tool.Name
	}
	return "see the tool's input schema"
}
