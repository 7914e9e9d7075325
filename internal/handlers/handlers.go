// Package handlers binds loupe's operations — their descriptors and their
// input and output types, in package ops — to the engine and the daemon's
// stores. Each handler is of a kind that says what it needs: the caller's
// surface (Tab), the session's browser (Browser), the caller and its
// current surface (OnCaller), one of the daemon's stores (the ledger, the
// approval policy, the settings, the approvals, the grants), or, for the
// few that need several, the call's Deps. The kind opens what the
// handler needs, once; no handler reaches through an environment for it.
//
// Table returns loupe's handlers by operation name; the executor runs the
// one of each call it decoded.
package handlers

import (
	"context"
	"fmt"
	"reflect"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/settings"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Handler runs an operation's calls: it gets the call's dependencies and
// its decoded, validated input (a pointer to the operation's input type)
// and returns a pointer to its output type, or an error.
type Handler struct {
	in, out reflect.Type
	run     func(ctx context.Context, d *Deps, in any) (any, error)
	check   func(in any) error
}

// Run calls the handler.
func (h Handler) Run(ctx context.Context, d *Deps, in any) (any, error) { return h.run(ctx, d, in) }

// Check is the part of an input's validation that needs this machine
// rather than the contract (a profile the input names must be here): the
// contract's Validate runs on every front end, also on one that links
// none of the daemon (the CLI, a remote MCP server), so what only the
// daemon can tell is checked here. The executor runs it right after
// Validate: a failure is refused as any bad input is, before the
// browser, the approval policy or the ledger see the call. It may write
// what it found into the input. Most handlers have none.
func (h Handler) Check(in any) error {
	if h.check == nil {
		return nil
	}
	return h.check(in)
}

// Checked gives a handler a check of its input (see Handler.Check).
func Checked[In any](h Handler, f func(in *In) error) Handler {
	h.check = func(in any) error {
		p, ok := in.(*In)
		if !ok {
			return fmt.Errorf("handlers: want *%s, got %T", reflect.TypeFor[In](), in)
		}
		return f(p)
	}
	return h
}

// In and Out are the input and output types the handler takes and gives.
func (h Handler) In() reflect.Type  { return h.in }
func (h Handler) Out() reflect.Type { return h.out }

// Deps are what the executor provides for one call. A handler kind takes
// from them only what its handlers need.
type Deps struct {
	// Session is the session's name; Task the caller's task.
	Session, Task string
	// Caller is the caller in its session: its browser, current surface
	// and last snapshots.
	Caller Caller
	// Files is the session's files directory (a confined caller's own).
	Files Files
	// Own, when set, is what a confined caller (a remote session) may
	// see of the session-wide lists: whether a surface is in a tab of
	// its own. Nil: the caller sees the whole session.
	Own func(ctx context.Context, surface string) bool
	// Browsers attaches and closes the session's browser.
	Browsers Browsers
	// Ledger, Rules: nil where this process keeps no operation ledger or
	// approval policy (the handlers that need them refuse).
	Ledger OpLog
	Rules  *policy.Policy
	// Settings are the home's browser-control settings.
	Settings  *settings.Store
	Control   Control
	Approvals Approvals
	Grants    Grants
	Previews  Previews
	// Dashboard is nil where this process serves none.
	Dashboard Dashboard
	// Broker is nil where this process serves none.
	Broker Broker
}

// Caller is the caller of one call in its session. Browser and Tab start
// the session's browser on first use.
type Caller interface {
	// Browser returns the session's browser.
	Browser(ctx context.Context) (*engine.Browser, error)
	// Tab returns the caller's current surface; a caller without one gets
	// the session's first tab, which becomes its current one.
	Tab(ctx context.Context) (*engine.Surface, error)
	// Current is the caller's current surface id ("" before its first).
	Current() string
	// SetCurrent makes a surface the caller's current one; other callers
	// of the session keep theirs.
	SetCurrent(id string)
	// Back makes the most recent surface the caller was on before, of
	// those open says are open, its current one and returns it ("" for
	// none).
	Back(open func(id string) bool) string
	// LastSnapshot is the caller's last snapshot of a surface: its text
	// (without the size footer) and the options it was taken with.
	LastSnapshot(surface string) (text string, opts ops.SnapshotIn, ok bool)
}

// Files is the session's files directory: everything a client hands the
// page or gets from it lives there.
type Files interface {
	// Path resolves a client's file name inside the directory; a name
	// that would leave it, or that does not exist, is BAD_INPUT.
	Path(name string) (string, error)
	// Save stores data as a new file and returns its path.
	Save(name string, data []byte) (string, error)
	// SaveUploads stores the files sent with an upload, each under its
	// own name, in a new directory; it returns their paths.
	SaveUploads(files []filesdir.File) ([]string, error)
	// Own makes the directory if missing and returns its path, checked
	// to be a directory of its own (no symlink).
	Own() (string, error)
	// Adopt links a file made outside the directory (a download) into
	// it and returns the new path.
	Adopt(src string) (string, error)
}

// Browsers attaches and closes the session's browser.
type Browsers interface {
	// Attach connects the session to a running browser.
	Attach(ctx context.Context, endpoint string) (*engine.Browser, error)
	// AttachGrid connects the session to a browser from the Selenium
	// Grid at url, asked for with the user's capabilities (a JSON
	// object; "" for loupe's defaults).
	AttachGrid(ctx context.Context, url, capabilities string) (*engine.Browser, error)
	// Place says where the session's browser runs: local, attached or
	// grid (with the Grid, its WebDriver session and node).
	Place() (kind string, g *ops.GridPlace)
	// Close ends the session; false if it had no browser.
	Close(ctx context.Context) (bool, error)
	// MarkPersonal says the session's browser is a person's own.
	MarkPersonal()
	// Downloads are the downloads of the session's browser (an error when
	// it has none).
	Downloads() (*download.Tracker, error)
}

// OpLog reads the operation ledger. Host is the identity this process
// records on its rows (several hosts may share the ledger).
type OpLog interface {
	Get(ctx context.Context, id string) (ledger.Entry, error)
	List(ctx context.Context, f ledger.Filter) ([]ledger.Entry, error)
	Acknowledge(ctx context.Context, id string) (ledger.Entry, error)
	ForgetHost(ctx context.Context, host string) ([]ledger.Entry, error)
	Host() string
}

// Control hands tabs between a person and the agents, by the page's
// surface id (see package sessions).
type Control interface {
	TakeOver(page string) int64
	Resume(page string) (epoch int64, ok bool)
	Mode(page string) (mode string, epoch int64)
	// Moved is closed once the tab's epoch is no longer epoch (a person
	// took it over, or handed it back).
	Moved(page string, epoch int64) <-chan struct{}
}

// Approvals are the writes waiting for a person's answer.
type Approvals interface {
	List() []wire.Approval
	Answer(id string, approve bool) (wire.Approval, error)
}

// Previews are the local HTML files authorised for tabs (package
// preview).
type Previews interface {
	// Allow authorises file for a tab of a task and returns its URL; shows
	// tells whether the tab still shows the grant's pages.
	Allow(file, tab, task string, shows func(prefix string) bool) (string, error)
	// Path is the file a tab's grant authorises ("" for none).
	Path(tab string) string
}

// Dashboard starts the dashboard, or finds the one running.
type Dashboard interface {
	// Serve returns the dashboard's address with its sign-in token,
	// starting it on addr ("" for a free loopback port) or moving it
	// there.
	Serve(addr string) (url string, err error)
}

// Func makes a handler from a typed function of the call's Deps: for
// handlers that need several of them, and for tests' registries.
func Func[In, Out any](f func(ctx context.Context, d *Deps, in *In) (*Out, error)) Handler {
	return Handler{in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](), run: func(ctx context.Context, d *Deps, in any) (any, error) {
		p, ok := in.(*In)
		if !ok {
			return nil, fmt.Errorf("handlers: want *%s, got %T", reflect.TypeFor[In](), in)
		}
		return f(ctx, d, p)
	}}
}

// Tab is the kind of the operations on the caller's current surface.
func Tab[In, Out any](f func(ctx context.Context, t *engine.Surface, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) {
		t, err := d.Caller.Tab(ctx)
		if err != nil {
			return nil, err
		}
		return f(ctx, t, in)
	})
}

// Browser is the kind of the operations on the session's browser.
func Browser[In, Out any](f func(ctx context.Context, b *engine.Browser, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) {
		b, err := d.Caller.Browser(ctx)
		if err != nil {
			return nil, err
		}
		return f(ctx, b, in)
	})
}

// OnCaller is the kind of the operations that read or change which
// surface the caller works in.
func OnCaller[In, Out any](f func(ctx context.Context, c Caller, b *engine.Browser, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) {
		b, err := d.Caller.Browser(ctx)
		if err != nil {
			return nil, err
		}
		return f(ctx, d.Caller, b, in)
	})
}

// Ledger is the kind of the operations that read the operation ledger.
func Ledger[In, Out any](f func(ctx context.Context, l OpLog, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) {
		if d.Ledger == nil {
			return nil, fmt.Errorf("this process keeps no operation ledger")
		}
		return f(ctx, d.Ledger, in)
	})
}

// Policy is the kind of the operations on the approval policy.
func Policy[In, Out any](f func(ctx context.Context, p *policy.Policy, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) {
		if d.Rules == nil {
			return nil, fmt.Errorf("this process keeps no approval policy")
		}
		return f(ctx, d.Rules, in)
	})
}

// Settings is the kind of the operations on the settings.
func Settings[In, Out any](f func(ctx context.Context, s *settings.Store, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) { return f(ctx, d.Settings, in) })
}

// Waiting is the kind of the operations on the writes waiting for
// approval.
func Waiting[In, Out any](f func(ctx context.Context, a Approvals, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) { return f(ctx, d.Approvals, in) })
}

// Tasks is the kind of the operations on the tasks' grants.
func Tasks[In, Out any](f func(ctx context.Context, g Grants, in *In) (*Out, error)) Handler {
	return Func(func(ctx context.Context, d *Deps, in *In) (*Out, error) { return f(ctx, d.Grants, in) })
}

// Grants are the tasks' grants (see package grants).
type Grants interface {
	List() []grants.Grant
	End(task string) []grants.Grant
	Owner(session, page string) string
}

// Table returns loupe's handlers by operation name: one for every
// operation of ops.New.
func Table() map[string]Handler {
	t := map[string]Handler{}
	for _, part := range []map[string]Handler{
		actHandlers(), navHandlers(), readHandlers(), sessionHandlers(), surfaceHandlers(), eventHandlers(), findHandlers(),
		ledgerHandlers(), controlHandlers(), taskHandlers(), policyHandlers(), settingsHandlers(), cookieHandlers(),
		previewHandlers(), viewportHandlers(), humanHandlers(), dashboardHandlers(), brokerHandlers(), {"record": Func(recordTab), "state save": Func(storageState("save")), "state load": Func(storageState("load"))}, networkHandlers(),
	} {
		for name, h := range part {
			if _, dup := t[name]; dup {
				panic("handlers: two handlers for " + name)
			}
			t[name] = h
		}
	}
	return t
}
