// Package executor is the one path every operation takes, whatever front
// end it came from: a pipeline of stages, built once as an ordered list
// (pipeline.go), each in a file of its own with its own test. A call
// enters them in this order:
//
//	decode    the operation, its input checked by its rules, the session
//	          and the caller (BAD_INPUT)
//	refusals  on the way back: a write refused before the ledger reserved
//	          it (TAKEN_OVER, DENIED, APPROVAL_TIMEOUT, HUMAN_CONTROL,
//	          NO_GRANT) is recorded, not executed, with its code
//	tabsfile  (on the way back: the tabs file is written before the reply)
//	control   browser writes refused while controlEnabled is off (DENIED)
//	grant     the task's grant, minted by a read, needed by a write (NO_GRANT)
//	confine   a confined caller (a remote agent) reads and writes only in
//	          the tabs its task opened (NO_GRANT)
//	human     a crashed tab, a tab held in a dialog flood, a tab a person
//	          has taken over (TAB_CRASHED, PAGE_BLOCKED, HUMAN_CONTROL)
//	restore   a restored placeholder tab the call works in is loaded
//	personal  a tab of the person's own browser: their approval first
//	document  a write planned on another document (STALE_REF)
//	origin    an agent's navigation to a local page (DENIED)
//	describe  the write as the stages after see it (guard.Write): its id, its
//	          tab, origin, element, locator, whether it types a secret
//	approval  the approval policy: allow, ask a person, deny
//	owner     a tab another task owns (NO_GRANT)
//	lane      the tab's write lane: one write at a time (TAKEN_OVER while
//	          waiting); left after everything else
//	ledger    the reservation, before anything is sent (DUPLICATE_OPERATION)
//	report    the session's state before a write that asked for a report;
//	          on the way back, what the write changed
//	effects   on the way back: tabs opened are the task's, a snapshot is
//	          the caller's last, settings changes are published, a browser
//	          gone is dropped
//	settle    on the way back: the outcome in the ledger and the events
//	classify  on the way back: a raw failure gets its registry code, and a
//	          write's outcome is unknown unless certainly not executed
//	run       the handler, cut short by a take-over or a crash
//
// Every refusal is not executed. Reads pass the write stages untouched;
// behaviour that depends on the operation comes from its descriptor's
// traits (ops.Op) and its input's (ops.TabOpener, ops.Navigator, …),
// never from its name or its input's type. The write report —
// navigation, pages opened and closed, dialogs, the changed lines of the
// caller's last snapshot — is computed here, once, for every front end.
package executor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/keeper"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/preview"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/settings"
	"github.com/loupe-dev/loupe/internal/tabturn"
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
	// Grid, if set, is where every new session's browser comes from
	// instead of a local launch (LOUPE_GRID).
	Grid *sessions.GridSource
	// MaxSessions bounds the sessions with a browser (0: none; loupe
	// daemon start --max-sessions).
	MaxSessions int
	// Log is where the executor says what it could not do for a call
	// after its reply was decided (a ledger that would not settle, a tabs
	// file it could not write); nil: standard error.
	Log *slog.Logger
	// TabsFile keeps the sessions' tabs across restarts ("" keeps none;
	// see package keeper).
	TabsFile string
	// Dashboard starts the dashboard for the dashboard operation (nil:
	// this process serves none). The daemon gives it; the dashboard
	// itself is a front end over this executor.
	Dashboard handlers.Dashboard
	// Broker serves the broker operations (nil: this process serves
	// none). The daemon gives it.
	Broker handlers.Broker

	// Registry is the operations the executor runs and Handlers their
	// handlers by name; nil is loupe's own (ops.New, handlers.Table).
	// Tests give fake operations (ops.NewRegistry, handlers.Func) to
	// drive the pipeline and the local API without a browser. Such
	// operations must be marked NoBrowser: a write asked for a report
	// otherwise starts the session's browser to take its state, and diffs
	// with the registry's "snapshot" operation. New panics when an
	// operation has no handler, or one of other types.
	Registry *ops.Registry
	Handlers map[string]handlers.Handler

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
	Policy guard.Policy
	Ledger guard.Ledger
	Gate   guard.Gate
}

// Executor runs operations for named sessions. It is safe for concurrent
// use.
type Executor struct {
	reg      *ops.Registry
	handlers map[string]handlers.Handler
	stages   pipeline
	sessions *sessions.Manager
	policy   guard.Policy
	ledger   guard.Ledger
	gate     guard.Gate
	store    *ledger.Ledger
	rules    *policy.Policy
	grants   *grants.Registry
	events   *events.Bus
	settings *settings.Store
	log      *slog.Logger
	previews *preview.Server
	waiting  *approvals.Queue
	lanes    tabturn.Lanes
	crashLog tabturn.Crashes
	// keeper keeps tabs and id numbers across restarts (nil: no tabs
	// file).
	keeper *keeper.Keeper
	// dashboard serves the dashboard operation (nil: none here).
	dashboard handlers.Dashboard
	// broker serves the broker operations (nil: none here).
	broker handlers.Broker
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
			Events: cfg.Events, Downloads: downloads, Crashed: crashed, Person: person, Grid: cfg.Grid, MaxSessions: cfg.MaxSessions,
		}),
		events: cfg.Events,
		policy: cfg.Policy, ledger: cfg.Ledger, gate: cfg.Gate, store: cfg.Store,
		settings: cfg.Settings, previews: preview.New(), dashboard: cfg.Dashboard, broker: cfg.Broker,
	}
	x.waiting = approvals.New(x.events)
	if x.log = cfg.Log; x.log == nil {
		x.log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if x.ledger == nil && cfg.Store != nil {
		x.ledger = guard.DiskLedger{Store: cfg.Store, Log: x.log} // after x.log: a nil logger panics when a row cannot be written
	}
	if x.settings == nil {
		x.settings = settings.Open("")
	}
	x.rules = cfg.Rules
	if x.policy == nil && cfg.Rules != nil {
		x.policy = guard.RulesPolicy{Rules: cfg.Rules, Queue: x.waiting}
	}
	if x.reg == nil {
		x.reg = ops.New()
	}
	x.handlers = cfg.Handlers
	if x.handlers == nil {
		x.handlers = handlers.Table()
	}
	for _, o := range x.reg.All() {
		h, ok := x.handlers[o.Name]
		if !ok || h.In() != o.InType() || h.Out() != o.OutType() {
			panic("executor: operation " + o.Name + " has no handler of its input and output types")
		}
	}
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
		x.policy = guard.AllowAll{}
	}
	if x.ledger == nil {
		x.ledger = guard.NoLedger{}
	}
	if x.gate == nil {
		x.gate = guard.GrantGate{Grants: x.grants}
	}
	if cfg.TabsFile != "" {
		kc := keeper.Config{Path: cfg.TabsFile, Sessions: x.sessions, Events: x.events, Log: x.log,
			Owner: x.grants.Owner, Claim: x.grants.Claim, Showing: x.previews.Showing}
		if x.store != nil {
			kc.Marks = x.store
		}
		x.keeper = keeper.Start(kc)
	}
	x.stages = x.pipeline()
	return x
}

// pipeline is the executor's stages in the order of stageOrder.
func (x *Executor) pipeline() pipeline {
	return pipeline{
		decodeStage{x}, refusalsStage{x.ledger}, tabsfileStage{x}, controlStage{x.settings}, grantStage{x.grants}, confineStage{x.grants}, humanStage{},
		restoreStage{x}, personalStage{x}, documentStage{}, originStage{}, describeStage{x.waiting},
		approvalStage{x.policy}, ownerStage{x.gate}, laneStage{&x.lanes}, ledgerStage{x.ledger}, reportStage{x},
		effectsStage{x}, settleStage{x.ledger, x.events, x.retrySettle}, classifyStage{}, runStage{},
	}
}

// Events is the executor's event bus: `loupe events` reads it.
func (x *Executor) Events() *events.Bus { return x.events }

// Registry returns the operation registry the executor runs.
func (x *Executor) Registry() *ops.Registry { return x.reg }

// Request is one call of an operation: the request envelope every front
// end sends (apitype.OpRequest — session, client, task, grant, input,
// deadline, write report, operation id, document token, local pages),
// the operation it names, and what only a front end in this process may
// say of the call. The local API hands the executor the envelope as it
// arrived (its route names the operation); the MCP server in process, the
// dashboard and the broker fill in the same type.
//
// Person and Confined are not in the envelope on purpose: they widen or
// narrow what a call may do, so no caller can claim them over a wire; the
// dashboard sets Person and the broker Confined, each for its own callers.
type Request struct {
	apitype.OpRequest
	Op string
	// Person marks the call as the person's own, made at the dashboard:
	// it works in any task's tab and in a tab the person has taken over
	// (their reload leaves it theirs), and a write of theirs is not held
	// for their own approval. It is still gated by controlEnabled, run in
	// its tab's lane and recorded in the ledger. Only the dashboard sets
	// it; no agent's front end can.
	Person bool
	// Confined keeps the call to the tabs its task opened, for reads as
	// for writes: a tab nobody owns (the session's first tab, a person's)
	// is refused like another task's (NO_GRANT). The broker sets it for
	// every remote agent's call (see confine.go).
	Confined bool
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
	// Warning is what the caller should know of a write that ran: its
	// outcome could not be recorded in the ledger ("" for none).
	Warning string
}

// Do runs one operation through the pipeline and returns its output, or
// an *apitype.Error whose Op names the operation. Every string a page
// controls in the output, the report or the error is bounded (wire.Bound).
func (x *Executor) Do(ctx context.Context, req Request) (*Result, error) {
	c := &call{req: req}
	o := x.stages.run(ctx, c)
	if o.err != nil {
		wire.Bound(o.err)
		return nil, o.err
	}
	res := &Result{Out: o.out, OperationID: c.write.ID, Grant: c.grant, Report: o.report, ApprovedAfter: c.approvedAfter, Warning: o.warning}
	wire.Bound(res.Out)
	wire.Bound(res.Report)
	return res, nil
}

// EndTasks ends every task match accepts, as task end does (its grants
// are revoked, its tabs released, its writes refused from now on) —
// including those that have not called yet — and returns the grants it
// revoked. The broker calls it for the tasks of a host connection
// generation that a new registration or a revocation replaced.
func (x *Executor) EndTasks(match func(task string) bool) []grants.Grant {
	end := taskEnder{x.grants, x.events, x.previews}
	var out []grants.Grant
	for _, t := range x.grants.Tasks(match) {
		out = append(out, end.End(t)...)
	}
	return append(out, x.grants.EndWhere(match)...)
}

// Sessions lists the sessions with a running browser.
func (x *Executor) Sessions() []apitype.SessionInfo { return x.sessions.List() }

// Ledger says where the operation ledger is (nil: it keeps none).
func (x *Executor) Ledger() *apitype.LedgerInfo {
	if x.store == nil {
		return nil
	}
	backend := "sqlite"
	if ledger.IsPostgres(x.store.Where()) {
		backend = "postgres"
	}
	return &apitype.LedgerInfo{Backend: backend, Where: x.store.Where(), Host: x.store.Host()}
}

// Close ends every session.
func (x *Executor) Close(ctx context.Context) error {
	if x.keeper != nil {
		x.keeper.Stop() // before the browsers close their tabs
	}
	x.stopBG()
	err := x.sessions.Close(ctx)
	x.bgWork.Wait()
	return errors.Join(err, x.previews.Close())
}

// OwnsTab reports whether a task owns a tab of the session: the broker
// opens a remote session's first page in a tab of its own.
func (x *Executor) OwnsTab(session, task string) bool {
	for _, g := range x.grants.List() {
		if g.Session == session && g.Task == task && len(g.Tabs) > 0 {
			return true
		}
	}
	return false
}

// Response is the call's answer as the front ends that speak HTTP send it
// (the local API, the broker): a result, or an error with its registry
// code (an error without one is INTERNAL).
func Response(res *Result, err error) (apitype.OpResponse, error) {
	if err != nil {
		e, ok := apitype.As(err)
		if !ok {
			e = apitype.Wrap(apitype.Internal, err, "%v", err)
		}
		return apitype.OpResponse{Error: e}, e
	}
	out, merr := json.Marshal(res.Out)
	if merr != nil {
		e := apitype.Wrap(apitype.Internal, merr, "encoding result: %v", merr)
		return apitype.OpResponse{Error: e}, e
	}
	return apitype.OpResponse{Result: out, Report: res.Report, OperationID: res.OperationID, Grant: res.Grant,
		ApprovedAfterMS: res.ApprovedAfter.Milliseconds(), Warning: res.Warning}, nil
}
