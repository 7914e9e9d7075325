package mcpserver

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// fakeBackend records what each call would run.
type fakeBackend struct {
	opID   string
	op     string
	in     map[string]any
	report *apitype.ReportOptions
}

func (f *fakeBackend) Do(_ context.Context, c Call) (*Reply, error) {
	f.op, f.report, f.in, f.opID = c.Op.Name, c.Report, nil, c.OperationID
	if err := json.Unmarshal(c.Input, &f.in); err != nil {
		return nil, err
	}
	return &Reply{Out: c.Op.NewOut(), OperationID: c.OperationID}, nil
}

func newFake(t *testing.T, o Options) (*Server, *fakeBackend) {
	t.Helper()
	f := &fakeBackend{}
	o.Backend = f
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s, f
}

// wireFields are an input type's JSON field names (and Go types) that an
// MCP tool must offer: all but those tagged mcp:"-" and those it fixes.
func wireFields(typ reflect.Type, fixed map[string]any) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" || f.Tag.Get("mcp") == "-" {
			continue
		}
		if _, ok := fixed[name]; ok {
			continue
		}
		out[name] = f.Type
	}
	return out
}

// Every operation is an MCP tool, or says why not; each tool offers
// exactly its operations' input fields, under their wire names, with the
// JSON Schema type of the Go field.
func TestEveryOpIsATool(t *testing.T) {
	s, _ := newFake(t, Options{AllowEval: true})
	schemaType := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean", reflect.Int: "integer",
		reflect.Int64: "integer", reflect.Float64: "number", reflect.Slice: "array"}
	for _, op := range s.reg.All() {
		if len(op.Tools) == 0 {
			if op.NoMCP == "" {
				t.Errorf("%s has no MCP tool and no reason for it", op.Name)
			}
			continue
		}
		for _, dt := range op.Tools {
			tl := s.tools[dt.Name]
			if tl == nil {
				t.Fatalf("%s: tool %s was not built", op.Name, dt.Name)
			}
			if tl.tool.Description == "" {
				t.Errorf("tool %s has no description", dt.Name)
			}
			for name, typ := range wireFields(op.InType(), dt.Fixed) {
				p := tl.props[name]
				switch {
				case p == nil:
					t.Errorf("%s: tool %s lacks the field %s", op.Name, dt.Name, name)
				case p.Type != schemaType[typ.Kind()]:
					t.Errorf("%s: tool %s field %s is %s, the op's is %s", op.Name, dt.Name, name, p.Type, typ)
				}
			}
		}
	}
}

// Tool schemas use one plain type word per property (no type lists such
// as ["null","array"], which common function-calling dialects refuse).
func TestToolSchemasArePlain(t *testing.T) {
	s, _ := newFake(t, Options{AllowEval: true})
	for _, tl := range s.tools {
		b, err := json.Marshal(tl.tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"type":[`) || strings.Contains(string(b), `"types"`) {
			t.Errorf("%s: schema has a list of types: %s", tl.tool.Name, b)
		}
		if !strings.Contains(string(b), `"additionalProperties":false`) {
			t.Errorf("%s: schema accepts unknown fields: %s", tl.tool.Name, b)
		}
	}
}

// TestToolAnnotations: every tool has a title and hints a client can act
// on — reads are read-only (and can be allowed without asking), writes
// that act on a page are destructive, switching surfaces is not; page
// tools are open-world, the ledger's are not. Required fields are
// required, fixed strings enums.
func TestToolAnnotations(t *testing.T) {
	s, _ := newFake(t, Options{AllowEval: true})
	for _, tl := range s.tools {
		a := tl.tool.Annotations
		if a == nil || a.Title == "" || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v", tl.tool.Name, a)
			continue
		}
		if !a.ReadOnlyHint && a.DestructiveHint == nil {
			t.Errorf("%s: a write without destructiveHint", tl.tool.Name)
		}
	}
	want := map[string]struct{ readOnly, destructive, open bool }{
		"browser_snapshot": {true, false, true},
		"browser_click":    {false, true, true},
		"browser_navigate": {false, true, true},
	}
	for name, w := range want {
		tl := s.tools[name]
		if tl == nil {
			t.Fatalf("no tool %s", name)
		}
		a := tl.tool.Annotations
		d := a.DestructiveHint != nil && *a.DestructiveHint
		if a.ReadOnlyHint != w.readOnly || d != w.destructive || *a.OpenWorldHint != w.open {
			t.Errorf("%s: readOnly %v destructive %v open %v, want %+v", name, a.ReadOnlyHint, d, *a.OpenWorldHint, w)
		}
	}
	if got := s.tools["browser_click"].tool.Annotations.Title; got != "Click" {
		t.Errorf("title %q", got)
	}
	b, _ := json.Marshal(s.tools["browser_click"].tool.InputSchema)
	if !strings.Contains(string(b), `"required":["ref"`) {
		t.Errorf("browser_click: ref is not required: %s", b)
	}
	b, _ = json.Marshal(s.tools["browser_snapshot"].tool.InputSchema)
	if !strings.Contains(string(b), `"enum":["last"]`) {
		t.Errorf("browser_snapshot: since is not an enum: %s", b)
	}
}

// A call picks the operation by the tool's selector, takes a single
// string for a list, leaves out what the op does not take, and asks the
// executor for the report the tool promises.
func TestCallsRunTheirOperation(t *testing.T) {
	s, f := newFake(t, Options{AllowEval: true})
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		op     string
		in     string // the op's input as JSON
		report string // the report options as JSON ("null": none)
	}{
		{"browser_click", map[string]any{"ref": "e1"}, "click", `{"ref":"e1"}`, `{"diff":true}`},
		{"browser_click", map[string]any{"ref": "e1", "double": true}, "dblclick", `{"ref":"e1"}`, `{"diff":true}`},
		{"browser_click", map[string]any{"ref": "e1", "snapshot": true}, "click", `{"ref":"e1"}`, `{"snapshot":true}`},
		{"browser_press", map[string]any{"keys": "Control+A"}, "press", `{"keys":["Control+A"]}`, `{"diff":true}`},
		{"browser_navigate", map[string]any{"url": "http://127.0.0.1/"}, "open", `{"url":"http://127.0.0.1/"}`, `{"snapshot":true,"max_chars":20000}`},
		{"browser_navigate", map[string]any{"action": "back", "snapshot": false}, "back", `{}`, `{}`},
		{"browser_read", map[string]any{}, "text", `{}`, `null`},
		{"browser_read", map[string]any{"what": "attribute", "ref": "e2", "name": "href"}, "attr", `{"name":"href","ref":"e2"}`, `null`},
		{"browser_check", map[string]any{"ref": "e3", "checked": false}, "uncheck", `{"ref":"e3"}`, `{"diff":true}`},
		{"browser_close", map[string]any{}, "tab close", `{}`, `{"diff":true}`},
		{"browser_close", map[string]any{"session": true}, "close", `{}`, `{"diff":true}`},
		{"browser_tabs", map[string]any{"action": "select", "surface_id": "s2"}, "tab activate", `{"surface_id":"s2"}`, `{"diff":true}`},
		{"browser_snapshot", map[string]any{}, "snapshot", `{"max_chars":40000}`, `null`},
		{"browser_screenshot", map[string]any{"full": true}, "screenshot", `{"full":true,"inline":true}`, `null`},
		{"browser_wait", map[string]any{"text": "Done", "timeout_ms": 5000}, "wait", `{"text":"Done","timeout_ms":5000}`, `null`},
	} {
		res, err := s.call(context.Background(), s.tools[tc.tool], mustJSON(t, tc.args))
		if err != nil {
			t.Errorf("%s %v: %v", tc.tool, tc.args, err)
			continue
		}
		if res == nil || f.op != tc.op || string(mustJSON(t, f.in)) != tc.in || string(mustJSON(t, f.report)) != tc.report {
			t.Errorf("%s %v: ran %s %s report %s; want %s %s report %s", tc.tool, tc.args, f.op, mustJSON(t, f.in), mustJSON(t, f.report), tc.op, tc.in, tc.report)
		}
	}
}

// Malformed calls are BAD_INPUT before anything runs, and an unknown field
// names the one probably meant.
func TestMalformedCalls(t *testing.T) {
	s, f := newFake(t, Options{})
	for _, tc := range []struct {
		tool string
		args string
		want string
	}{
		{"browser_click", `{"target":"e1"}`, `no field "target" (did you mean "ref"?)`},
		{"browser_wait", `{"text":"x","timeout":500}`, `(did you mean "timeout_ms"?)`},
		{"browser_switch_surface", `{"surfaceId":"s2"}`, `(did you mean "surface_id"?)`},
		{"browser_click", `{"reff":"e1"}`, `(did you mean "ref"?)`},
		{"browser_click", `{"zzzzzz":1}`, `its fields: `},
		{"browser_click", `{"ref":12}`, `arguments of browser_click`},
		{"browser_click", `[1]`, `not a JSON object`},
		{"browser_read", `{"what":"box","name":"href"}`, `name does not apply when what is box`},
		{"browser_read", `{"what":"colour"}`, `arguments of browser_read`},
	} {
		f.op = ""
		_, err := s.call(context.Background(), s.tools[tc.tool], json.RawMessage(tc.args))
		e, ok := apitype.As(err)
		if !ok || e.Code != apitype.BadInput || !e.NotExecuted || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s %s: %v; want BAD_INPUT with %q", tc.tool, tc.args, err, tc.want)
		}
		if f.op != "" {
			t.Errorf("%s %s ran %s", tc.tool, tc.args, f.op)
		}
	}
}

// browser_eval is offered only with AllowEval; --tools core serves the
// core set only.
func TestToolSets(t *testing.T) {
	s, _ := newFake(t, Options{})
	for _, n := range s.Tools() {
		if n == "browser_eval" {
			t.Error("browser_eval offered without AllowEval")
		}
	}
	core, _ := newFake(t, Options{Tools: "core"})
	want := []string{"browser_click", "browser_navigate", "browser_press", "browser_query", "browser_read", "browser_screenshot",
		"browser_scroll", "browser_select", "browser_snapshot", "browser_tabs", "browser_type", "browser_wait"}
	if got := core.Tools(); !reflect.DeepEqual(got, want) {
		t.Errorf("core tools:\n got %v\nwant %v", got, want)
	}
}

// TestUnofferedToolIsAToolError: calling a tool loupe has but this server
// does not offer (eval without AllowEval, a full tool on a core server) is
// a tool error saying why and what to do, not a bare JSON-RPC error, and
// runs nothing; an unknown name stays a protocol error.
func TestUnofferedToolIsAToolError(t *testing.T) {
	for _, c := range []struct {
		o    Options
		tool string
		want string
	}{
		{Options{}, "browser_eval", "--allow-eval"},
		{Options{Tools: "core"}, "browser_surfaces", "--tools full"},
	} {
		s, f := newFake(t, c.o)
		ctx, cancel := context.WithCancel(context.Background())
		ct, st := mcp.NewInMemoryTransports()
		go s.Run(ctx, st)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: map[string]any{"expression": "1"}})
		if err != nil || !r.IsError {
			t.Fatalf("%s: %+v %v, want a tool error", c.tool, r, err)
		}
		text := r.Content[0].(*mcp.TextContent).Text
		if !strings.HasPrefix(text, "BAD_INPUT: ") || !strings.Contains(text, c.want) || !strings.Contains(text, "not executed") {
			t.Errorf("%s: %q", c.tool, text)
		}
		if f.op != "" {
			t.Errorf("%s ran %s", c.tool, f.op)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_nonesuch"}); err == nil {
			t.Error("an unknown tool is not a protocol error")
		}
		cs.Close()
		cancel()
	}
}

// Recovery steps and field names are rendered as tool calls, never as
// CLI commands or flags.
func TestErrorsInToolTerms(t *testing.T) {
	s, _ := newFake(t, Options{})
	e := apitype.Errorf(apitype.RefWrongSurface, "e4 belongs to s3").Fix("switch to it ({1}) or take a snapshot ({2})",
		apitype.Step{Op: "switch", Args: map[string]string{"surface_id": "s3"}}, apitype.Step{Op: "snapshot"})
	txt := s.errorResult(e).Content[0].(*mcp.TextContent).Text
	if !strings.Contains(txt, `browser_switch_surface {"surface_id":"s3"}`) || !strings.Contains(txt, "(browser_snapshot)") {
		t.Errorf("steps: %s", txt)
	}
	e = apitype.Errorf(apitype.BadInput, "%s %d is too small", apitype.Field("max_chars"), 5)
	e.Op = "snapshot"
	txt = s.errorResult(e).Content[0].(*mcp.TextContent).Text
	if !strings.Contains(txt, "max_chars 5 is too small") || strings.Contains(txt, "--") || !strings.Contains(txt, "input schema of browser_snapshot") {
		t.Errorf("field: %s", txt)
	}
	e = apitype.Errorf(apitype.Timeout, "no text")
	e.Op, e.TimeoutMS = "wait", 3000
	if txt = s.errorResult(e).Content[0].(*mcp.TextContent).Text; !strings.Contains(txt, "raise timeout_ms (it was 3000)") {
		t.Errorf("timeout: %s", txt)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
