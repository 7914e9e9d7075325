package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// A stage is one step of the pipeline. enter looks at the call — it may
// learn something about it, or refuse it, and then no stage after it
// runs and the call is not executed — and may return a leave function,
// called with the call's outcome once the stages after it are done, in
// the reverse order of entering. Each stage gets the request's context
// and bounds what it waits for itself.
type stage interface {
	name() string
	enter(ctx context.Context, c *call) (leave func(*outcome), err error)
}

// pipeline is the executor's stages, in the order they are entered
// (stageOrder); it is built once, by New.
type pipeline []stage

// stageOrder is the documented order of the stages (see the package doc);
// a test holds the pipeline New builds to it.
var stageOrder = []string{
	"decode", "refusals", "tabsfile", "control", "grant", "confine", "human", "restore", "personal", "document", "origin", "describe",
	"approval", "owner", "lane", "ledger", "report", "effects", "settle", "classify", "run",
}

// outcome is what a call came to: its output, or the run's raw error
// (classify gives it its code) or a stage's refusal, and a write's report.
type outcome struct {
	out    any
	raw    error          // the run's error, before classify
	cause  error          // why the run's context ended, if it did
	err    *apitype.Error // the call's error, as the caller gets it
	report *apitype.Report
	// warning is said beside a result that is not an error (see
	// Result.Warning).
	warning string
}

// call is one request on its way through the pipeline: what the stages
// have found out about it so far.
type call struct {
	req     Request
	op      *ops.Op
	handler handlers.Handler
	in      any
	kind    ops.Kind
	sess    *sessions.Session
	client  *sessions.Client
	deps    *handlers.Deps
	// task is the caller's task; grant the id of its grant.
	task, grant string
	// write describes a write to the stages that guard it (its ID once
	// described); reserved: its row is in the ledger.
	write    guard.Write
	reserved bool
	// epoch is the take-over epoch of the caller's tab when a stage
	// looked.
	epoch   int64
	timeout time.Duration // the operation's deadline
	ran     time.Time     // when the handler started (the run stage)
	// approvedAfter is how long the call waited for a person's approval.
	approvedAfter time.Duration
	// before is the session's state before a write that asked for a
	// report (nil: no report).
	before *state
	// page finds the tab the call works in, and pageByID a tab by id; each
	// is nil, nil when no browser runs or the operation must not start
	// one (see page.go). Tests give fakes.
	page     func(ctx context.Context) (pageView, error)
	pageByID func(ctx context.Context, id string) (pageView, error)
}

// isWrite reports whether the call is a write.
func (c *call) isWrite() bool { return c.kind == ops.Write }

// bounded is ctx bounded by the operation's deadline, for a stage's own
// waits.
func (c *call) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// run takes a call through the stages: each is entered in turn until one
// refuses it (its refusal is the outcome, not executed), then the leave
// functions of those entered run in reverse order.
func (p pipeline) run(ctx context.Context, c *call) *outcome {
	o := &outcome{}
	var leaves []func(*outcome)
	for _, s := range p {
		leave, err := s.enter(ctx, c)
		if err != nil {
			o.err = refused(err, c)
			break
		}
		if leave != nil {
			leaves = append(leaves, leave)
		}
	}
	for i := len(leaves) - 1; i >= 0; i-- {
		leaves[i](o)
	}
	return o
}

// refused is a stage's refusal as the caller gets it: a registry error
// naming the operation (and the write's id once it has one), not
// executed — nothing was dispatched.
func refused(err error, c *call) *apitype.Error {
	e, ok := apitype.As(err)
	if !ok {
		e = apitype.Wrap(apitype.Internal, err, "%v", err)
	}
	e.NotExecuted = true
	if c.op != nil {
		e.Op = c.op.Name
	} else {
		e.Op = c.req.Op
	}
	if c.write.ID != "" {
		e.OperationID = c.write.ID
	}
	return e
}
