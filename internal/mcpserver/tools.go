package mcpserver

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/ops"
)

// fieldMarkup is a field named in a help text ({field:NAME}).
var fieldMarkup = regexp.MustCompile(`\{field:[a-z_]+\}`)

// navSnapshotChars caps the snapshot that navigations return: past it the
// text is cut at a line, and the agent can take a scoped or interactive
// snapshot.
const navSnapshotChars = 20000

// tool is one MCP tool and the operations it runs.
type tool struct {
	tool    *mcp.Tool
	core    bool
	gate    string
	members []member
	// sel is the field that picks the member ("" with one member).
	sel   string
	props map[string]*jsonschema.Schema
	// lists are the fields that take a list; a single string is taken as
	// a list of one.
	lists    map[string]bool
	resolved *jsonschema.Resolved
	// write: some member writes, and the tool takes `snapshot`; nav: that
	// snapshot is on by default (navigations).
	write, nav bool
}

// member is one operation of a tool.
type member struct {
	op     *ops.Op
	t      ops.Tool
	fields map[string]bool // the op's input fields offered by the tool
}

// offered reports whether any of the tool's operations is offered.
func (t *tool) offered(ops map[string]bool) bool {
	for _, m := range t.members {
		if ops[m.op.Name] {
			return true
		}
	}
	return false
}

// buildTools derives every tool from the operation descriptors. A
// descriptor that cannot be offered (a field type with no plain JSON
// Schema type, a field meaning two things in one tool) panics: it is a
// programming error that the tests catch.
func buildTools(reg *ops.Registry) map[string]*tool {
	tools := map[string]*tool{}
	for _, op := range reg.All() {
		for _, dt := range op.Tools {
			t := tools[dt.Name]
			if t == nil {
				t = &tool{tool: &mcp.Tool{Name: dt.Name}, props: map[string]*jsonschema.Schema{}, lists: map[string]bool{}}
				tools[dt.Name] = t
			}
			if dt.Desc != "" {
				t.tool.Description = dt.Desc
			}
			t.core = t.core || dt.Core
			if dt.Gate != "" {
				t.gate = dt.Gate
			}
			if dt.Select != "" {
				t.sel = dt.Select
			}
			m := member{op: op, t: dt, fields: map[string]bool{}}
			addFields(t, &m, op.InType())
			t.members = append(t.members, m)
			if op.Kind == ops.Write {
				t.write = true
				t.nav = op.Action == ops.ActNavigate
			}
		}
	}
	for _, t := range tools {
		t.finish()
	}
	return tools
}

// addFields adds the op's input fields to the tool's schema.
func addFields(t *tool, m *member, typ reflect.Type) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" || f.Tag.Get("mcp") == "-" {
			continue
		}
		if _, fixed := m.t.Fixed[name]; fixed {
			continue
		}
		s := fieldSchema(f.Type)
		if s == nil {
			panic(fmt.Sprintf("mcpserver: %s field %s: type %s has no plain JSON Schema type (tag it mcp:\"-\")", m.op.Name, name, f.Type))
		}
		if e := f.Tag.Get("enum"); e != "" { // a fixed set of strings
			for _, v := range strings.Split(e, ",") {
				s.Enum = append(s.Enum, v)
			}
		}
		s.Description = f.Tag.Get("help")
		if h, ok := f.Tag.Lookup("mcphelp"); ok {
			s.Description = h
		}
		s.Description = fieldMarkup.ReplaceAllStringFunc(s.Description, func(m string) string { return m[len("{field:") : len(m)-1] })
		if d, ok := m.t.Defaults[name]; ok {
			s.Description += fmt.Sprintf(" (default %v)", d)
		}
		if old := t.props[name]; old != nil {
			if old.Type != s.Type {
				panic(fmt.Sprintf("mcpserver: tool %s field %s is %s in one operation and %s in %s", t.tool.Name, name, old.Type, s.Type, m.op.Name))
			}
		} else {
			t.props[name] = s
		}
		if s.Type == "array" {
			t.lists[name] = true
		}
		m.fields[name] = true
		_ = opts
	}
}

// fieldSchema is a plain JSON Schema for a field type: one "type" word,
// never a list of types, which some function-calling dialects refuse.
func fieldSchema(t reflect.Type) *jsonschema.Schema {
	switch t.Kind() {
	case reflect.String:
		return &jsonschema.Schema{Type: "string"}
	case reflect.Bool:
		return &jsonschema.Schema{Type: "boolean"}
	case reflect.Int, reflect.Int64:
		return &jsonschema.Schema{Type: "integer"}
	case reflect.Float64:
		return &jsonschema.Schema{Type: "number"}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
		}
	}
	return nil
}

// finish adds the selector and the report fields, marks required fields
// and resolves the schema.
func (t *tool) finish() {
	if len(t.members) > 1 {
		if t.sel == "" {
			panic(fmt.Sprintf("mcpserver: tool %s runs %d operations but none names a selector field", t.tool.Name, len(t.members)))
		}
		var vals []any
		var words []string
		def := ""
		boolean := false
		for _, m := range t.members {
			if _, ok := m.t.Value.(bool); ok {
				boolean = true
				continue
			}
			if m.t.Value == "" {
				def = "leave it out to " + m.op.Name
				continue
			}
			vals = append(vals, m.t.Value)
			words = append(words, fmt.Sprint(m.t.Value))
			if m.t.Default {
				def = fmt.Sprint(m.t.Value)
			}
		}
		s := &jsonschema.Schema{Type: "boolean"}
		if boolean {
			var parts []string
			for _, m := range t.members {
				d := fmt.Sprintf("%v: %s", m.t.Value, m.op.Summary)
				if m.t.Default {
					d += " (default)"
				}
				parts = append(parts, d)
			}
			s.Description = strings.Join(parts, "; ")
		} else {
			s = &jsonschema.Schema{Type: "string", Enum: vals, Description: strings.Join(words, ", ")}
			switch {
			case strings.HasPrefix(def, "leave"):
				s.Description += " (" + def + ")"
			case def != "":
				s.Description += " (default " + def + ")"
			}
		}
		if old := t.props[t.sel]; old != nil {
			s.Description = old.Description
		}
		t.props[t.sel] = s
	}
	if t.write {
		desc := "return a whole new snapshot instead of the changes"
		if t.nav {
			desc = fmt.Sprintf("return the new page's snapshot (default true; at most %d characters)", navSnapshotChars)
		}
		if _, taken := t.props["snapshot"]; !taken {
			t.props["snapshot"] = &jsonschema.Schema{Type: "boolean", Description: desc}
		}
		// Described in a few words: every write tool carries them, and
		// the tool list is in every agent's context.
		t.props["operation_id"] = &jsonschema.Schema{Type: "string", Description: "your id for this write, used once"}
		t.props["document_token"] = &jsonschema.Schema{Type: "string", Description: "your snapshot's; refused if the page changed"}
	}
	schema := &jsonschema.Schema{Type: "object", Properties: t.props, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	// A field is required when every operation of the tool takes it and
	// needs it (not omitempty, no default).
	need := map[string]int{}
	var order []string
	for _, m := range t.members {
		typ := m.op.InType()
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			_, hasDefault := m.t.Defaults[name]
			if m.fields[name] && !strings.Contains(opts, "omitempty") && !hasDefault {
				if need[name] == 0 {
					order = append(order, name)
				}
				need[name]++
			}
		}
	}
	for _, name := range order {
		if need[name] == len(t.members) {
			schema.Required = append(schema.Required, name)
		}
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %s: %v", t.tool.Name, err))
	}
	t.tool.InputSchema = schema
	t.resolved = resolved
	t.tool.Annotations = t.annotations()
}

// annotations tell a client what the tool does, so it can allow reads
// without asking: a tool whose operations all read is read-only; a write
// may destroy (it acts on a page: a click can submit, a close loses a
// tab) unless it only moves the caller's attention (switching surfaces),
// which is also idempotent; a tool is open-world when it works on pages
// of the web, closed when it only reads loupe's own state (its ledger,
// its files, its sessions).
func (t *tool) annotations() *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: toolTitle(t.tool.Name), ReadOnlyHint: !t.write}
	open, destructive, idempotent := false, false, true
	for _, m := range t.members {
		open = open || !m.op.NoBrowser
		if m.op.Kind == ops.Write && m.op.Action != ops.ActTarget {
			destructive, idempotent = true, false
		}
	}
	a.OpenWorldHint = &open
	if t.write {
		a.DestructiveHint = &destructive
		a.IdempotentHint = idempotent
	}
	return a
}

// toolTitle is a tool's name for people: browser_switch_surface is
// "Switch surface".
func toolTitle(name string) string {
	words := strings.ReplaceAll(strings.TrimPrefix(name, "browser_"), "_", " ")
	if words == "" {
		return name
	}
	return strings.ToUpper(words[:1]) + words[1:]
}

// pick is the member a call's arguments select; the selector is removed.
func (t *tool) pick(args map[string]any) (member, bool) {
	if len(t.members) == 1 {
		return t.members[0], true
	}
	v, given := args[t.sel]
	delete(args, t.sel)
	for _, m := range t.members {
		if given && fmt.Sprint(m.t.Value) == fmt.Sprint(v) || !given && m.t.Default {
			return m, true
		}
	}
	return member{}, false
}

// fieldNames are the tool's fields, sorted.
func (t *tool) fieldNames() []string {
	names := make([]string, 0, len(t.props))
	for n := range t.props {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sortedTools lists the tools by name.
func sortedTools(m map[string]*tool) []*tool {
	out := make([]*tool, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].tool.Name < out[j].tool.Name })
	return out
}
