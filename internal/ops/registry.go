// Package ops is loupe's operation registry: every verb an agent or a
// script can call, with its typed input and output, its risk class and its
// handler. Front ends are derived from it: the CLI parses argv into an
// operation's input from the struct tags, the local API routes
// /v0/op/<name> to it, the MCP server (later) builds its tools from it. None
// of them call the engine directly; the executor runs the handler.
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
	"context"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
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

// Env is what a handler gets from the executor: the caller's session and
// its browser. Implementations start the browser on first use.
type Env interface {
	// Session is the session name.
	Session() string
	// Browser returns the session's browser, starting it if needed.
	Browser(ctx context.Context) (*engine.Browser, error)
	// Tab returns the session's active tab (starting the browser if
	// needed).
	Tab(ctx context.Context) (*engine.Tab, error)
	// Attach connects the session to a running browser.
	Attach(ctx context.Context, endpoint string) (*engine.Browser, error)
	// Close ends the session; false if there was none.
	Close(ctx context.Context) (bool, error)
	// SaveFile stores data in the session's own files directory and
	// returns the path.
	SaveFile(name string, data []byte) (string, error)
	// FilePath resolves a name inside the session's files directory; any
	// name that would leave it, or that does not exist, is BAD_INPUT.
	FilePath(name string) (string, error)
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

// Op is one registered operation.
type Op struct {
	Name    string // "click", "tab new"
	Summary string
	Kind    Kind
	// Timeout is the default deadline of one call.
	Timeout time.Duration
	// NoBrowser marks operations that must not start a browser.
	NoBrowser bool

	in, out reflect.Type
	run     func(ctx context.Context, env Env, in any) (any, error)
}

// NewIn returns a pointer to a zero input.
func (o *Op) NewIn() any { return reflect.New(o.in).Interface() }

// NewOut returns a pointer to a zero output.
func (o *Op) NewOut() any { return reflect.New(o.out).Interface() }

// InType is the input struct type (for argv and schema derivation).
func (o *Op) InType() reflect.Type { return o.in }

// Run calls the handler with a pointer from NewIn.
func (o *Op) Run(ctx context.Context, env Env, in any) (any, error) {
	return o.run(ctx, env, in)
}

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

// define makes an Op from a typed handler.
func define[In, Out any](name, summary string, kind Kind, timeout time.Duration, run func(ctx context.Context, env Env, in *In) (*Out, error)) *Op {
	return &Op{
		Name: name, Summary: summary, Kind: kind, Timeout: timeout,
		in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
		run: func(ctx context.Context, env Env, in any) (any, error) {
			p, ok := in.(*In)
			if !ok {
				return nil, fmt.Errorf("ops: %s got %T", name, in)
			}
			return run(ctx, env, p)
		},
	}
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
	for _, group := range [][]*Op{navOps(), actOps(), readOps(), sessionOps(), surfaceOps(), eventOps(), findOps()} {
		for _, o := range group {
			r.add(o)
		}
	}
	return r
}
