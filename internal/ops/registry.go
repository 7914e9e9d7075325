// Package ops is loupe's operation contract: every verb an agent or a
// script can call, described once — its typed input (with its rules) and
// output, its risk class, its traits, its CLI shape and MCP tools. Front
// ends are derived from it: the CLI parses argv into an operation's input
// from the struct tags, the local API routes /v0/op/<name> to it, the MCP
// server builds its tools from it. Handlers are bound on the daemon's side
// (package handlers); none of the front ends call the engine, and this
// package imports none of it.
//
// Input struct tags:
//
//	json:"name"          wire name (local API, MCP)
//	arg:"NAME"           a required positional argument
//	arg:"[NAME]"         an optional positional (filled only when the
//	                     arguments after it are satisfied)
//	arg:"NAME..."        the remaining positionals ([]string)
//	flag:"name"          a --name flag; short:"o" adds -o; meta:"URL"
//	                     names its value in usage (default: NAME)
//	help:"…"             one line of help
package ops

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// Kind is an operation's risk class: reads observe, writes may change the
// page or the session and go through approval and the ledger.
type Kind int

const (
	Read Kind = iota
	Write
)

func (k Kind) String() string {
	if k == Write {
		return "write"
	}
	return "read"
}

// Targeter is implemented by inputs that name a tab to act on other than
// the caller's current one (tab close ID): the grant gate checks who owns
// it.
type Targeter interface {
	Target() string
}

// TabNamer is implemented by inputs that may name a tab to act on or
// select (tab activate, tab close, takeover, network start): a confined caller (a remote
// agent) may name only its own (see executor.Request.Confined).
type TabNamer interface {
	NamedTab() string
}

// TabFilter is implemented by outputs that list the session's tabs
// (tabs): for a confined caller the executor keeps only the caller's
// own.
type TabFilter interface {
	KeepTabs(keep func(id string) bool)
}

// TaskFilter is implemented by outputs that read the operation ledger
// (ops, ops show): for a confined caller the executor keeps only its
// task's operations. KeepTask reports whether anything is left: an
// operation of another task is refused, not shown.
type TaskFilter interface {
	KeepTask(task string) bool
}

// TabOpener is implemented by inputs of writes that may open a tab and
// make it the caller's current one (tab new, open --new-tab): the caller's
// task owns it, and the write does not act in the caller's old tab.
type TabOpener interface {
	OpensTab() bool
}

// Navigator is implemented by inputs of writes that open an address
// (open, tab new): the address, "" when the call opens none. The
// executor holds it to the caller's right to open local pages, and takes
// the write's origin from it for the approval policy.
type Navigator interface {
	NavigatesTo() string
}

// Switcher is implemented by inputs of operations that make a surface
// the caller's current one (switch, tab activate): a restored tab loads
// when a caller switches to it.
type Switcher interface {
	SwitchTo() string
}

// Replacer is implemented by inputs of writes that show another document
// in the caller's tab (open, preview): a restored tab they work in is not
// loaded first.
type Replacer interface {
	Replaces() bool
}

// Texter is implemented by outputs that have a terse human form.
type Texter interface {
	Text() string
}

// Validator is implemented by inputs with rules beyond their types; a
// failure is a usage error (BAD_INPUT, exit 2) and touches no browser.
type Validator interface {
	Validate() error
}

// Writer is implemented by inputs that make a read operation a write for
// one call (dialogs --accept changes how the page's dialogs are answered).
type Writer interface {
	Writes() bool
}

// KindOf is the risk class of one call: the operation's, raised to Write
// when the input says it writes.
func (o *Op) KindOf(in any) Kind {
	if w, ok := in.(Writer); ok && w.Writes() {
		return Write
	}
	return o.Kind
}

// Action is a write's class for the approval policy: a policy allows,
// asks for or denies each class, not each verb.
type Action string

// The action classes. Reads are ActRead.
const (
	ActRead     Action = "read"
	ActNavigate Action = "navigate" // open, back, forward, reload, tab new
	ActInput    Action = "input"    // click, type, press, select, drag, scroll, …
	ActUpload   Action = "upload"   // hands local files to the page
	ActDownload Action = "download" // a download a page starts (decided as it begins)
	ActEval     Action = "eval"     // runs the caller's script in the page
	ActClose    Action = "close"    // closes a tab or the session
	ActTarget   Action = "target"   // changes which surface the caller works in
	ActSession  Action = "session"  // attaches the session to another browser
	ActDialogs  Action = "dialogs"  // changes how the page's dialogs are answered
	ActControl  Action = "control"  // a person takes a tab over or hands it back
	ActRecord   Action = "record"   // starts or stops a recording of a tab
	ActState    Action = "state"    // saves or loads cookies and storage
	ActNetwork  Action = "network"  // routes a tab's requests: mocks, blocks or rewrites them
)

// Tool is how an operation is offered as an MCP tool. Several operations
// may share one tool (browser_read is text, value, attr, …): the tool's
// field Select tells them apart, Value being this operation's; the one
// marked Default runs when the field is absent. The tool's schema is the
// union of its operations' input fields, so a field means the same thing
// under the same name in every tool.
type Tool struct {
	Name string // browser_click
	// Desc is the tool's one-line description (given on one operation of
	// a shared tool).
	Desc string
	// Core puts the tool in the core set (mcp --tools core).
	Core    bool
	Select  string
	Value   any
	Default bool
	// Fixed are input fields the tool always sets (not in its schema).
	Fixed map[string]any
	// Defaults are the tool's values for fields the caller left out
	// (browser_snapshot's budget: a whole large page would flood the
	// agent's context).
	Defaults map[string]any
	// Gate names the server option that must be on to offer the tool
	// ("eval": mcp --allow-eval).
	Gate string
}

// Op is one registered operation: everything a front end needs to offer
// it, described once.
type Op struct {
	Name    string // "click", "tab new"
	Summary string
	// Group is the family it is listed under (navigate, act, read, …).
	Group string
	Kind  Kind
	// Action is the class the approval policy decides on.
	Action Action
	// Timeout is the default deadline of one call.
	Timeout time.Duration
	// NoBrowser marks operations that must not start a browser.
	NoBrowser bool
	// SessionWide marks operations that work on the session, not on the
	// caller's tab (lists, logs, tab management): a tab a person has
	// taken over does not stop them.
	SessionWide bool
	// Tools are the MCP tools that run it; NoMCP says why there is none.
	Tools []Tool
	NoMCP string
	// Live marks a person's own input to a tab they hold (human-input):
	// their hands, not an agent's write, so it passes no approval, grant
	// or ledger — the executor runs it as it comes.
	Live bool
	// Snapshot marks an operation whose output is a snapshot of the
	// caller's surface (SnapshotOut): the executor keeps it as the
	// caller's last, for the reports of its next writes.
	Snapshot bool
	// Settings marks an operation that changes the person's settings or
	// approval policy: pages that show them (the dashboard) read them
	// again.
	Settings bool

	in, out reflect.Type
}

// mcp offers the operation as an MCP tool.
func (o *Op) mcp(t Tool) *Op {
	o.Tools = append(o.Tools, t)
	return o
}

// as sets a write's action class.
func (o *Op) as(a Action) *Op {
	o.Action = a
	return o
}

// sessionWide marks the operation as working on the session, not a tab.
func (o *Op) sessionWide() *Op {
	o.SessionWide = true
	return o
}

// noBrowser marks an operation that must not start a browser.
func (o *Op) noBrowser() *Op {
	o.NoBrowser = true
	return o
}

// snapshots marks an operation whose output is a snapshot (Op.Snapshot).
func (o *Op) snapshots() *Op {
	o.Snapshot = true
	return o
}

// changesSettings marks an operation that changes the settings or the
// policy (Op.Settings).
func (o *Op) changesSettings() *Op {
	o.Settings = true
	return o
}

// noMCP records why the operation has no MCP tool.
func (o *Op) noMCP(why string) *Op {
	o.NoMCP = why
	return o
}

// NewIn returns a pointer to a zero input.
func (o *Op) NewIn() any { return reflect.New(o.in).Interface() }

// NewOut returns a pointer to a zero output.
func (o *Op) NewOut() any { return reflect.New(o.out).Interface() }

// InType is the input struct type (for argv and schema derivation).
func (o *Op) InType() reflect.Type { return o.in }

// OutType is the output struct type.
func (o *Op) OutType() reflect.Type { return o.out }

// Registry holds operations by name.
type Registry struct {
	ops map[string]*Op
}

// Lookup returns the named operation.
func (r *Registry) Lookup(name string) (*Op, bool) {
	o, ok := r.ops[name]
	return o, ok
}

// All returns the operations sorted by name.
func (r *Registry) All() []*Op {
	out := make([]*Op, 0, len(r.ops))
	for _, o := range r.ops {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (r *Registry) add(o *Op) {
	if _, dup := r.ops[o.Name]; dup {
		panic("ops: duplicate operation " + o.Name)
	}
	r.ops[o.Name] = o
}

// Describe makes an operation's descriptor with input type In and output
// type Out, for registries other than loupe's own (NewRegistry): tests
// that drive the executor and the local API without a browser, and
// extensions. Its action class is ActRead for a read and ActInput for a
// write; set Action, NoBrowser, Group and Tools on the result as needed.
func Describe[In, Out any](name, summary string, kind Kind, timeout time.Duration) *Op {
	return describe[In, Out](name, summary, kind, timeout)
}

// NewRegistry returns a registry of exactly these operations (New is
// loupe's own). It exists so the executor can run a registry of fake
// operations in tests, where no operation may start a browser. A
// duplicate name panics, as in New.
func NewRegistry(ops ...*Op) *Registry {
	r := &Registry{ops: map[string]*Op{}}
	for _, o := range ops {
		r.add(o)
	}
	return r
}

// describe makes an operation's descriptor.
func describe[In, Out any](name, summary string, kind Kind, timeout time.Duration) *Op {
	action := ActRead
	if kind == Write {
		action = ActInput
	}
	return &Op{Name: name, Summary: summary, Kind: kind, Action: action, Timeout: timeout, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out]()}
}

// Default timeouts.
const (
	navTimeout    = 30 * time.Second
	actTimeout    = 15 * time.Second
	waitTimeout   = 3 * time.Second
	maxWait       = 60 * time.Second
	launchTimeout = 30 * time.Second
)

// New returns the registry of every operation.
func New() *Registry {
	r := &Registry{ops: map[string]*Op{}}
	for _, g := range []struct {
		name string
		ops  []*Op
	}{
		{"navigate", navOps()}, {"act", actOps()}, {"read", readOps()}, {"session", sessionOps()},
		{"surfaces", surfaceOps()}, {"events", eventOps()}, {"find", findOps()}, {"ledger", ledgerOps()}, {"control", controlOps()}, {"tasks", taskOps()}, {"policy", policyOps()}, {"settings", settingsOps()}, {"cookies", cookieOps()}, {"preview", previewOps()}, {"viewport", viewportOps()}, {"human", humanOps()}, {"dashboard", dashboardOps()}, {"broker", brokerOps()}, {"record", recordOps()}, {"state", stateOps()}, {"network", networkOps()},
	} {
		for _, o := range g.ops {
			o.Group = g.name
			r.add(o)
		}
	}
	return r
}

// Decode parses and validates an operation's input without running it:
// a pointer to its input type. Unknown fields are refused: a misspelt
// option must not be ignored.
func Decode(op *Op, raw json.RawMessage) (any, error) {
	in := op.NewIn()
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(in); err != nil {
			return nil, apitype.Errorf(apitype.BadInput, "%s: bad input: %v", op.Name, err)
		}
	}
	if v, ok := in.(Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	return in, nil
}
