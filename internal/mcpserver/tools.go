package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// toolDef is one tool and whether it is in the core set.
type toolDef struct {
	tool    *mcp.Tool
	core    bool
	handler mcp.ToolHandler
}

// def builds a tool whose input is In: its schema comes from In's json and
// jsonschema tags (fields without omitempty are required, unknown
// properties refused), enums restrict string fields. Arguments are checked
// against the schema here, so a malformed call is BAD_INPUT with the
// registry's hint, and never reaches an operation.
func def[In any](name, desc string, core bool, enums map[string][]any, run func(ctx context.Context, in *In) (*mcp.CallToolResult, error)) toolDef {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %s: %v", name, err))
	}
	for prop, vals := range enums {
		schema.Properties[prop].Enum = vals
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %s: %v", name, err))
	}
	h := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		raw := req.Params.Arguments
		if len(raw) == 0 || string(raw) == "null" {
			raw = json.RawMessage("{}")
		}
		var in In
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			return withMeta(errorResult(apitype.Errorf(apitype.BadInput, "arguments of %s are not JSON: %v", name, err)), start), nil
		}
		if err := resolved.Validate(generic); err != nil {
			return withMeta(errorResult(apitype.Errorf(apitype.BadInput, "arguments of %s: %v", name, err)), start), nil
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			return withMeta(errorResult(apitype.Errorf(apitype.BadInput, "arguments of %s: %v", name, err)), start), nil
		}
		res, err := run(ctx, &in)
		if err != nil {
			res = errorResult(err)
		}
		return withMeta(res, start), nil
	}
	return toolDef{tool: &mcp.Tool{Name: name, Description: desc, InputSchema: schema}, core: core, handler: h}
}

// Tool inputs. Descriptions are one line: they are part of every client's
// context.

type openIn struct {
	URL      string `json:"url" jsonschema:"address to open"`
	NewTab   bool   `json:"new_tab,omitempty" jsonschema:"open in a new tab and use it from now on"`
	Snapshot *bool  `json:"snapshot,omitempty" jsonschema:"return the page's snapshot (default true; at most 20000 characters)"`
}

type navigateIn struct {
	URL      string `json:"url,omitempty" jsonschema:"address to open in the current tab"`
	Action   string `json:"action,omitempty" jsonschema:"instead of a url: back, forward or reload"`
	Snapshot *bool  `json:"snapshot,omitempty" jsonschema:"return the page's snapshot (default true; at most 20000 characters)"`
}

type snapshotIn struct {
	Interactive bool   `json:"interactive,omitempty" jsonschema:"only actionable nodes and their context"`
	Depth       int    `json:"depth,omitempty" jsonschema:"cut each frame's tree below this many levels"`
	Scope       string `json:"scope,omitempty" jsonschema:"only the subtree of this ref or locator (also inside frames)"`
	Viewport    bool   `json:"viewport,omitempty" jsonschema:"only what is in the viewport"`
	Locators    bool   `json:"locators,omitempty" jsonschema:"print a stable locator for each ref"`
	MaxChars    int    `json:"max_chars,omitempty" jsonschema:"truncate after this many characters, at a line (default 40000; the cut is stated)"`
}

type screenshotIn struct {
	Ref      string `json:"ref,omitempty" jsonschema:"element to capture (ref or locator); default the viewport"`
	FullPage bool   `json:"full_page,omitempty" jsonschema:"the whole page instead of the viewport"`
}

type clickIn struct {
	Ref       string `json:"ref" jsonschema:"element ref (e12) or locator (role=button[name=\"Save\"])"`
	Double    bool   `json:"double,omitempty" jsonschema:"double click"`
	Button    string `json:"button,omitempty" jsonschema:"left (default), right or middle"`
	Modifiers string `json:"modifiers,omitempty" jsonschema:"keys held: Shift, Control, Alt, Meta joined by +"`
	Snapshot  bool   `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type typeIn struct {
	Ref      string `json:"ref,omitempty" jsonschema:"field to type into; default the focused element"`
	Text     string `json:"text" jsonschema:"text to type key by key"`
	Clear    bool   `json:"clear,omitempty" jsonschema:"empty the field first"`
	Submit   bool   `json:"submit,omitempty" jsonschema:"press Enter afterwards"`
	Snapshot bool   `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type pressIn struct {
	Keys     []string `json:"keys" jsonschema:"keys or chords in order: Enter, Tab, Escape, ArrowDown, Control+A"`
	Snapshot bool     `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type scrollIn struct {
	Ref      string  `json:"ref,omitempty" jsonschema:"element to scroll into view (and to turn the wheel over)"`
	DX       float64 `json:"dx,omitempty" jsonschema:"horizontal wheel delta in CSS pixels"`
	DY       float64 `json:"dy,omitempty" jsonschema:"vertical wheel delta in CSS pixels"`
	Snapshot bool    `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type selectIn struct {
	Ref      string   `json:"ref" jsonschema:"the <select> element"`
	Values   []string `json:"values" jsonschema:"option values or labels to choose"`
	Snapshot bool     `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type refIn struct {
	Ref      string `json:"ref" jsonschema:"element ref or locator"`
	Snapshot bool   `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type dragIn struct {
	From     string `json:"from" jsonschema:"element to drag (ref or locator)"`
	To       string `json:"to" jsonschema:"element to drop it on"`
	Snapshot bool   `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type uploadIn struct {
	Ref      string   `json:"ref" jsonschema:"the file input"`
	Files    []string `json:"files" jsonschema:"files in the session's files directory (downloads land in downloads/ there)"`
	Snapshot bool     `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}

type downloadIn struct {
	Wait      bool `json:"wait,omitempty" jsonschema:"wait for a download in progress, or the next one, to finish"`
	TimeoutMS int  `json:"timeout_ms,omitempty" jsonschema:"how long to wait (default 30000)"`
}

type noIn struct{}

type queryIn struct {
	Role    string `json:"role,omitempty" jsonschema:"role as snapshots show it: button, link, textbox, …"`
	Name    string `json:"name,omitempty" jsonschema:"accessible name contains this (case-insensitive)"`
	Text    string `json:"text,omitempty" jsonschema:"innermost elements whose text contains this"`
	Exact   bool   `json:"exact,omitempty" jsonschema:"the name must match whole"`
	Within  string `json:"within,omitempty" jsonschema:"search only inside this element (ref or locator)"`
	FrameOf string `json:"frame_of,omitempty" jsonschema:"search only the frame that holds this ref"`
	Limit   int    `json:"limit,omitempty" jsonschema:"list at most this many (default 20)"`
}

type waitIn struct {
	Text      string `json:"text,omitempty" jsonschema:"wait until this text appears"`
	Ref       string `json:"ref,omitempty" jsonschema:"wait until this element is visible"`
	URL       string `json:"url,omitempty" jsonschema:"wait until the URL matches (glob with *, else substring)"`
	Load      bool   `json:"load,omitempty" jsonschema:"wait for the load event"`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"default 3000, at most 8000"`
}

type readIn struct {
	Ref  string `json:"ref,omitempty" jsonschema:"element (ref or locator); without it, text reads the whole page"`
	What string `json:"what" jsonschema:"text, value, attribute, box, state or html"`
	Name string `json:"name,omitempty" jsonschema:"attribute name (for what: attribute)"`
}

type tabsIn struct {
	Action string `json:"action,omitempty" jsonschema:"list (default), new, close or select"`
	ID     string `json:"id,omitempty" jsonschema:"tab id for close and select (s1, s2, …)"`
	URL    string `json:"url,omitempty" jsonschema:"address for new"`
}

type switchIn struct {
	SurfaceID string `json:"surfaceId" jsonschema:"surface id from browser_surfaces"`
}

type logIn struct {
	Surface string `json:"surface,omitempty" jsonschema:"only records of this surface"`
	Clear   bool   `json:"clear,omitempty" jsonschema:"forget the records after returning them"`
}

type dialogsIn struct {
	Policy     string `json:"policy,omitempty" jsonschema:"how to answer later dialogs: accept, dismiss or auto"`
	PromptText string `json:"prompt_text,omitempty" jsonschema:"text for prompts (with policy accept)"`
}

type evalIn struct {
	Expression string `json:"expression" jsonschema:"JavaScript evaluated in the page; its JSON value is returned"`
	Snapshot   bool   `json:"snapshot,omitempty" jsonschema:"return a full new snapshot instead of the changes"`
}
