// Package executor is the one path every operation takes, whatever front
// end it came from. It is a pipeline of small stages (see Do):
//
//	decode/validate → grant (the task's; NO_GRANT) → human and crash
//	gate (HUMAN_CONTROL, TAB_CRASHED) → document token (STALE_REF) →
//	for a write: policy (allow, ask, deny) → gate (the tab's owner task)
//	→ the tab's lane (one write at a time; TAKEN_OVER while waiting) →
//	ledger reserve → run (cut short by a take-over or a crash) → classify
//	→ settle (ledger, events) → report
//
// Every refusal before the reservation is not executed and leaves no
// ledger row; from the reservation on, the outcome is settled executed,
// not_executed or unknown. Policy, ledger and gate are interfaces so tests
// can replace them; the executor's own are the approval policy, the
// on-disk ledger and the grant registry. The write report — navigation,
// pages opened and closed, dialogs, the changed lines of the caller's last
// snapshot — is computed here, once, for every front end.
package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/preview"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/settings"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Config configures an executor.
type Config struct {
	// Home is loupe's state directory (LOUPE_HOME): sessions keep their
	// profiles and files under Home/sessions/NAME.
	Home string
	// Settings are the person's browser-control settings (nil: the
	// defaults, kept nowhere). Every process of a home opens the same
	// file, LOUPE_HOME/settings.json.
	Settings *settings.Store
	// Chromium is the browser binary to launch ("" finds one).
	Chromium string
	// Headed shows browser windows.
	Headed bool
	// BrowserArgs are extra Chromium flags.
	BrowserArgs []string
	// BrowserLog, if set, receives launched browsers' stderr.
	BrowserLog io.Writer
	// TabsFile keeps the sessions' tabs across restarts ("" keeps none;
	// see restore.go).
	TabsFile string
	// Dashboard starts the dashboard for the dashboard operation (nil:
	// this process serves none). The daemon gives it; the dashboard
	// itself is a front end over this executor.
	Dashboard ops.Dashboard

	// Registry is the operations the executor runs; nil is loupe's own
	// (ops.New). Tests give a registry of fake operations (ops.NewRegistry)
	// to drive the pipeline and the local API without a browser. Such
	// operations must be marked NoBrowser: a write asked for a report
	// otherwise starts the session's browser to take its state, and diffs
	// with the registry's "snapshot" operation.
	Registry *ops.Registry

	// Rules is the approval policy; with it every write is allowed, held
	// for a person's answer or denied by its rules (unless Policy
	// replaces that stage), and the policy operations read and change it.
	Rules *policy.Policy

	// Store is the operation ledger on disk; with it every write is
	// reserved and settled there (unless Ledger replaces that stage), and
	// the ops operations read it.
	Store *ledger.Ledger

	// Events receives what happens (nil: a bus of the executor's own;
	// see Events).
	Events *events.Bus

	// Grants are the tasks' grants; nil keeps a registry of the
	// executor's own (for the ledger's generation, when there is one).
	Grants *grants.Registry

	// The stages that guard writes; nil lets every write through (Gate
	// nil is the grant gate).
	Policy Policy
	Ledger Ledger
	Gate   Gate
}

// Executor runs operations for named sessions. It is safe for concurrent
// use.
type Executor struct {
	reg      *ops.Registry
	sessions *sessions.Manager
	policy   Policy
	ledger   Ledger
	gate     Gate
	store    *ledger.Ledger
	rules    *policy.Policy
	grants   *grants.Registry
	events   *events.Bus
	settings *settings.Store
	previews *preview.Server
	waiting  approvals
	lanes    lanes
	crashLog crashes
	restore  restoring
	// dashboard serves the dashboard operation (nil: none here).
	dashboard ops.Dashboard
	// bg bounds the executor's own work (download approvals); Close ends
	// it and waits for it.
	bg     context.Context
	stopBG context.CancelFunc
	bgWork sync.WaitGroup
}

// New returns an executor running cfg.Registry (loupe's own by default).
func New(cfg Config) *Executor {
	if cfg.Events == nil {
		cfg.Events = events.New()
	}
	var x *Executor
	downloads := func(s *sessions.Session) download.Options { return x.downloadPolicy(s) }
	crashed := func(ctx context.Context, s *sessions.Session, t *engine.Surface) { x.crashed(ctx, s, t) }
	person := func(_ context.Context, s *sessions.Session, t *engine.Surface) { x.personInput(s, t) }
	x = &Executor{
		reg: cfg.Registry,
		sessions: sessions.New(sessions.Config{
			Home: cfg.Home, Chromium: cfg.Chromium, Headed: cfg.Headed, BrowserArgs: cfg.BrowserArgs, BrowserLog: cfg.BrowserLog,
			Events: cfg.Events, Downloads: downloads, Crashed: crashed, Person: person,
		}),
		events: cfg.Events,
		policy: cfg.Policy, ledger: cfg.Ledger, gate: cfg.Gate, store: cfg.Store,
		settings: cfg.Settings, previews: preview.New(), dashboard: cfg.Dashboard,
	}
	if x.ledger == nil && cfg.Store != nil {
		x.ledger = ledgerStage{cfg.Store}
	}
	if x.settings == nil {
		x.settings = settings.Open("")
	}
	x.rules = cfg.Rules
	if x.policy == nil && cfg.Rules != nil {
		x.policy = policyStage{p: cfg.Rules, q: &x.waiting}
	}
	if x.reg == nil {
		x.reg = ops.New()
	}
	x.waiting.events = x.events
	x.bg, x.stopBG = context.WithCancel(context.Background())
	x.grants = cfg.Grants
	if x.grants == nil {
		gen := apitype.NewOperationID()
		if cfg.Store != nil {
			gen = strconv.FormatInt(cfg.Store.Generation(), 10)
		}
		x.grants = grants.New(gen, 0, nil)
	}
	if x.policy == nil {
		x.policy = allowAll{}
	}
	if x.ledger == nil {
		x.ledger = noLedger{}
	}
	if x.gate == nil {
		x.gate = grantGate{x.grants}
	}
	if cfg.TabsFile != "" {
		x.startRestore(cfg.TabsFile)
	}
	return x
}

// Events is the executor's event bus: `loupe events` reads it.
func (x *Executor) Events() *events.Bus { return x.events }

// Registry returns the operation registry the executor runs.
func (x *Executor) Registry() *ops.Registry { return x.reg }

// Request is one call of an operation.
type Request struct {
	Op      string
	Session string
	// Client names the caller within the session ("" is the CLI's): each
	// client keeps its own current surface and last snapshots.
	Client string
	// Task is the task the caller works as ("" is DefaultTask(Client));
	// Grant the grant id it was given, if it keeps one (see package
	// grants).
	Task, Grant string
	// Input is the operation's input as JSON; a pre-decoded input may be
	// given in Decoded instead.
	Input   json.RawMessage
	Decoded any
	// Timeout overrides the operation's default deadline.
	Timeout time.Duration
	// Report asks for a write's report (nil: none).
	Report *apitype.ReportOptions
	// OperationID names a write in the ledger ("" picks a new one); an id
	// is used once, ever. Reads ignore it.
	OperationID string
	// DocumentToken, on a write, refuses it (STALE_REF) unless the
	// caller's surface still shows the document of that token.
	DocumentToken string
	// LocalPages lets the caller open file: and chrome: pages (a person
	// at the CLI; an agent only when allowed, see origins.go).
	LocalPages bool
	// Person marks the call as the person's own, made at the dashboard:
	// it works in any task's tab and in a tab the person has taken over
	// (their reload leaves it theirs), and a write of theirs is not held
	// for their own approval. It is still gated by controlEnabled, run in
	// its tab's lane and recorded in the ledger. Only the dashboard sets
	// it; no agent's front end can.
	Person bool
}

// Result is an operation's output, the write's operation id, and, for a
// write asked for one, its report.
type Result struct {
	Out         any
	OperationID string
	// Grant is the id of the task's grant the call ran under ("" for
	// the operations that need none).
	Grant  string
	Report *apitype.Report
	// ApprovedAfter is how long the write waited for a person's approval
	// (0: it did not wait).
	ApprovedAfter time.Duration
}

// SessionRule says what a session name may be.
const SessionRule = "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"

// ValidSession reports whether name can name a session.
func ValidSession(name string) bool { return sessions.ValidName(name) }

// Decode parses and validates an operation's input without running it.
// Unknown fields are refused: a misspelt option must not be ignored.
func Decode(op *ops.Op, raw json.RawMessage) (any, error) {
	in := op.NewIn()
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(in); err != nil {
			return nil, apitype.Errorf(apitype.BadInput, "%s: bad input: %v", op.Name, err)
		}
	}
	if v, ok := in.(ops.Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// call is one request on its way through the pipeline.
type call struct {
	op     *ops.Op
	in     any
	kind   ops.Kind
	sess   *sessions.Session
	client *sessions.Client
	env    *env
	write  Write // a write's description for the stages (its ID once guarded)
	epoch  int64 // of the caller's tab, when the gate looked
	task   string
	grant  string // the id of the task's grant
	// approvedAfter is how long the write waited for a person's approval.
	approvedAfter time.Duration
	timeout       time.Duration // the operation's deadline
	// leave ends the write's turn in its tab's lane (nil: it has none).
	leave func()
	// person: the call is a person's, at the dashboard (Request.Person).
	person bool
}

// Do runs one operation through the pipeline and returns its output, or
// an *apitype.Error whose Op names the operation. Every string a page
// controls in the output, the report or the error is bounded (wire.Bound).
func (x *Executor) Do(ctx context.Context, req Request) (*Result, error) {
	res, err := x.do(ctx, req)
	if e, ok := apitype.As(err); ok {
		wire.Bound(e)
	}
	if res != nil {
		wire.Bound(res.Out)
		wire.Bound(res.Report)
	}
	return res, err
}

func (x *Executor) do(ctx context.Context, req Request) (*Result, error) {
	c, err := x.decode(req)
	if err != nil {
		return nil, failed(err, req.Op)
	}
	defer x.keepTabs() // before the reply: see restore.go
	timeout := c.op.Timeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	c.timeout = timeout
	// The gates get the operation's deadline; a write held for a
	// person's approval waits by the policy's own bound; the run gets a
	// whole deadline of its own after that.
	gctx, gcancel := context.WithTimeout(ctx, timeout)
	defer gcancel()
	if err := x.controlGate(c); err != nil {
		return nil, failed(err, req.Op)
	}
	c.task = req.Task
	if c.task == "" {
		c.task = DefaultTask(req.Client)
	}
	c.env.task = c.task
	c.person = req.Person
	if err := x.useGrant(c, c.task, req.Grant); err != nil {
		return nil, failed(err, req.Op)
	}
	if err := x.humanGate(gctx, c); err != nil {
		return nil, failed(err, req.Op)
	}
	if err := x.loadRestored(gctx, c); err != nil {
		return nil, failed(err, req.Op)
	}
	// Held for the person's answer, by the approval timeout rather
	// than the operation's deadline.
	waited, err := x.personalGate(ctx, c)
	if err != nil {
		return nil, failed(err, req.Op)
	}
	if waited > 0 { // the gates after it get a whole deadline again
		c.approvedAfter = waited
		var cancel context.CancelFunc
		gctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if c.kind == ops.Write {
		if err := x.documentGate(gctx, c, req.DocumentToken); err != nil {
			return nil, failed(err, req.Op)
		}
		c.write.Document = req.DocumentToken
		if err := originGate(c, req.LocalPages); err != nil {
			return nil, failed(err, req.Op)
		}
		err := x.guard(gctx, ctx, c, req.OperationID)
		if c.leave != nil {
			defer c.leave()
		}
		if err != nil {
			return nil, failed(err, req.Op, c.write.ID)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if c.kind == ops.Write {
		var stop func()
		ctx, stop = watchTab(ctx, c.sess, c.write)
		defer stop()
	}
	var before *state
	if c.kind == ops.Write && req.Report != nil {
		// Without a browser yet, everything the write brings up is new.
		if before = x.state(ctx, c); before == nil && !c.op.NoBrowser {
			before = &state{none: true}
		}
	}
	out, err := c.op.Run(ctx, c.env, c.in)
	var e *apitype.Error
	if err != nil {
		if c.kind == ops.Write {
			e = cutShort(ctx, c.sess, c.write, err)
		}
		if e == nil {
			e = Classify(err, c.kind)
		}
		e.Op, e.OperationID = c.op.Name, c.write.ID
		if e.Code == apitype.Timeout && e.TimeoutMS == 0 {
			e.TimeoutMS = timeout.Milliseconds()
		}
	}
	x.settle(ctx, c, e)
	if e != nil {
		if e.Code == apitype.BrowserGone {
			c.sess.Drop()
		}
		return nil, e
	}
	if c.kind == ops.Write {
		x.ownOpened(ctx, c)
		x.markOwn(ctx, c)
	}
	x.remember(c, out)
	if c.kind == ops.Write && (c.op.Group == "settings" || c.op.Group == "policy") {
		// Pages that show them (the dashboard) read them again.
		x.events.Publish(events.Event{Kind: events.SettingsChanged, Session: c.sess.Name(), Op: c.op.Name})
	}
	res := &Result{Out: out, OperationID: c.write.ID, Grant: c.grant, ApprovedAfter: c.approvedAfter}
	if before != nil {
		res.Report = x.report(ctx, c, before, req.Report)
	}
	return res, nil
}

// decode is the first stage: the operation, the session and the caller,
// and the input checked against the operation's rules. Nothing runs on a
// failure here.
func (x *Executor) decode(req Request) (*call, error) {
	op, ok := x.reg.Lookup(req.Op)
	if !ok {
		return nil, apitype.Errorf(apitype.BadInput, "unknown operation %q", req.Op)
	}
	if req.Session == "" {
		req.Session = "default"
	}
	if !ValidSession(req.Session) {
		return nil, apitype.Errorf(apitype.BadInput, "session name %q: %s", req.Session, SessionRule)
	}
	in := req.Decoded
	if in == nil {
		var err error
		if in, err = Decode(op, req.Input); err != nil {
			return nil, err
		}
	} else if v, ok := in.(ops.Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	s := x.sessions.Get(req.Session)
	cl := s.Client(req.Client)
	kind := op.KindOf(in)
	if op.Live {
		// A person's own input passes none of a write's stages (see
		// ops.Op.Live): it runs as a read does.
		kind = ops.Read
	}
	return &call{op: op, in: in, kind: kind, sess: s, client: cl, env: &env{s: s, c: cl, x: x}}, nil
}

// settle records a write's outcome in the ledger: executed (e nil), not
// executed when the error says so for certain, unknown otherwise. The
// caller's context may have ended (a deadline): the settlement is written
// all the same.
func (x *Executor) settle(ctx context.Context, c *call, e *apitype.Error) {
	if c.kind != ops.Write {
		return
	}
	x.ledger.Settle(context.WithoutCancel(ctx), c.write, e)
	state, code := ledger.Executed, ""
	if e != nil {
		state, code = ledger.Unknown, string(e.Code)
		if e.NotExecuted {
			state = ledger.NotExecuted
		}
	}
	page := c.write.Page
	if page == "" && !c.op.NoBrowser && c.sess.Live() {
		// The write started the browser: name the tab it acted in.
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		if t, err := c.env.Tab(tctx); err == nil {
			page = t.PageID()
		}
		cancel()
	}
	x.events.Publish(events.Event{Kind: events.OpSettled, Session: c.write.Session, Task: c.write.Task, SurfaceID: page,
		OperationID: c.write.ID, Op: c.write.Op, State: string(state), Unknown: state == ledger.Unknown, Code: code, Epoch: c.write.Epoch})
}

// remember keeps a snapshot as its caller's last of that surface, for the
// reports of the caller's next writes.
func (x *Executor) remember(c *call, out any) {
	snap, ok := out.(*ops.SnapshotOut)
	if !ok {
		return
	}
	in, _ := c.in.(*ops.SnapshotIn)
	if in == nil {
		return
	}
	text := snap.Snapshot.Text
	if snap.Full != "" {
		text = snap.Full // a grep or since read: the caller saw the page whole
	}
	c.client.Remember(snap.SurfaceID, sessions.Snapshot{Options: *in, Text: body(text)})
}

// failed gives a refusal before the run its operation (and the write's
// id, once it has one). Nothing was dispatched.
func failed(err error, op string, id ...string) error {
	e, ok := apitype.As(err)
	if !ok {
		e = apitype.Wrap(apitype.Internal, err, "%v", err)
	}
	e.Op, e.NotExecuted = op, true
	if len(id) > 0 {
		e.OperationID = id[0]
	}
	return e
}

// Sessions lists the sessions with a running browser.
func (x *Executor) Sessions() []apitype.SessionInfo { return x.sessions.List() }

// Close ends every session.
func (x *Executor) Close(ctx context.Context) error {
	x.stopRestore() // before the browsers close their tabs
	x.stopBG()
	err := x.sessions.Close(ctx)
	x.bgWork.Wait()
	return errors.Join(err, x.previews.Close())
}
