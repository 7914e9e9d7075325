package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Write describes a write to the stages that guard it.
type Write struct {
	ID      string // the operation id, unique forever
	Op      string
	Action  ops.Action
	Session string
	Client  string
	Task    string // the caller's task ("" for a person's own commands)
	Surface string // the caller's current surface ("" before its first)
	Epoch   int64  // of the caller's tab (its take-overs so far)
	Page    string // the caller's tab (its page's surface id), when known
	Opener  string // the tab that opened Page, if any
	// Target is the tab the input names (tab close ID), when it names one;
	// TargetOpener the tab that opened it.
	Target, TargetOpener string
	Document             string // the document token the write was planned on
	// SessionWide: the operation works on the session, not in the
	// caller's tab (tab new, switch).
	SessionWide bool
	Origin      string // of the page the write acts on (or opens), when known
	Input       any
	Digest      string // of the op and its input
	// Person: the write is the person's own, at the dashboard; a tab
	// they hold does not stop it.
	Person bool
	// Element is the element the input names (its "ref": a ref or a
	// locator); Locator its stable locator, as the ref table has it for
	// a ref (kept in the ledger for history).
	Element, Locator string
	// Secret: the write types into a password field; its text is kept
	// nowhere (the ledger keeps the rest of its input).
	Secret bool
}

// Policy decides whether a write may run: allow it, refuse it (DENIED), or
// hold it for a person's answer; waited says how long it was held.
type Policy interface {
	Allow(ctx context.Context, w Write) (waited time.Duration, err error)
}

// Ledger records every write: Reserve before anything is dispatched
// (refusing a duplicate id), Settle with its outcome (e nil: executed;
// e.NotExecuted: certainly not; otherwise unknown). A write reserved and
// never settled is unknown, and never replayed.
type Ledger interface {
	Reserve(ctx context.Context, w Write) error
	Settle(ctx context.Context, w Write, e *apitype.Error)
}

// Gate refuses writes the caller's task may not make where they act
// (NO_GRANT: a tab another task owns); the executor's own is grantGate.
type Gate interface {
	Check(ctx context.Context, w Write) error
}

// allowAll is the policy of an executor without rules: every write may
// run.
type allowAll struct{}

func (allowAll) Allow(context.Context, Write) (time.Duration, error) { return 0, nil }

// noLedger records nothing: the ledger of an executor without a store
// (tests of other stages).
type noLedger struct{}

func (noLedger) Reserve(context.Context, Write) error          { return nil }
func (noLedger) Settle(context.Context, Write, *apitype.Error) {}

// guard runs the stages a write passes before it may run: the operation
// id, the approval policy, the gate (the caller's grant and the tab's
// take-over epoch) and, last, the ledger's reservation, so that a refused
// write leaves no row. Each refuses with a registry error and nothing
// executed.
func (x *Executor) guard(ctx, askCtx context.Context, c *call, id string) error {
	if id == "" {
		id = apitype.NewOperationID()
	} else if !apitype.ValidOperationID(id) {
		return apitype.Errorf(apitype.BadInput, "operation id %q: use 1 to 64 letters, digits, '.', '_', ':' or '-'", id)
	}
	doc := c.write.Document
	c.write = Write{ID: id, Op: c.op.Name, Action: c.op.Action, Session: c.sess.Name(), Client: c.client.ID(),
		Surface: c.client.Current(), Epoch: c.epoch, Input: c.in, Digest: digest(c.op.Name, c.in), Document: doc,
		SessionWide: c.op.SessionWide, Person: c.person}
	if o, ok := c.in.(ops.TabOpener); ok && o.OpensTab() {
		c.write.SessionWide = true // it acts in the tab it opens
	}
	if c.grant != "" || c.person {
		c.write.Task = c.task
	}
	x.where(ctx, c)
	element, text := inputFields(c.in)
	c.write.Element = element
	c.write.Locator = x.locatorOf(ctx, c, element)
	c.write.Secret = text != "" && x.typesSecret(ctx, c, element)
	// A person's own commands (take-over, policy, approvals) are not
	// theirs to approve.
	if c.op.Action == ops.ActControl {
		return x.ledger.Reserve(ctx, c.write)
	}
	// Nor are their writes at the dashboard: they take turns in the
	// tab's lane with the agents' and are recorded.
	if c.person {
		return x.enterLane(askCtx, c)
	}
	waited, err := x.policy.Allow(askCtx, c.write)
	if err != nil {
		return err
	}
	c.approvedAfter += waited
	// The wait for a person may have outlasted ctx: the gate and the
	// reservation that follow get a bound of their own.
	ctx, cancel := context.WithTimeout(askCtx, stageTimeout)
	defer cancel()
	if err := x.gate.Check(ctx, c.write); err != nil {
		return err
	}
	return x.enterLane(askCtx, c)
}

// enterLane waits for the write's turn in its tab's lane — after the
// writes before it have run, by a deadline of its own — then reserves it
// in the ledger.
func (x *Executor) enterLane(askCtx context.Context, c *call) error {
	lctx, lcancel := context.WithTimeout(askCtx, c.timeout)
	defer lcancel()
	leave, err := x.lanes.enter(lctx, c.sess, c.write)
	if err != nil {
		return err
	}
	c.leave = leave
	ctx, cancel := context.WithTimeout(askCtx, stageTimeout)
	defer cancel()
	return x.ledger.Reserve(ctx, c.write)
}

// stageTimeout bounds the gate and the ledger's reservation.
const stageTimeout = 10 * time.Second

// where fills in the tab a write acts on, the tab that opened it, the tab
// its input names and its page's origin (the address it opens, for a
// navigation), without starting a browser for it.
func (x *Executor) where(ctx context.Context, c *call) {
	w := &c.write
	if in, ok := c.in.(*ops.OpenIn); ok {
		w.Origin = originOf(in.URL)
	}
	if c.op.NoBrowser || !c.sess.Live() {
		return
	}
	if t, err := c.env.Tab(ctx); err == nil {
		w.Page, w.Opener = t.PageID(), surface.Opener(t)
		_, w.Epoch = c.sess.Mode(w.Page)
		c.epoch = w.Epoch
		if w.Origin == "" {
			w.Origin = originOf(t.URL())
		}
	}
	if in, ok := c.in.(ops.Targeter); ok {
		if in.Target() == "" {
			w.Target, w.TargetOpener = w.Page, w.Opener // the caller's own
		} else if b, err := c.env.Browser(ctx); err == nil {
			if t, err := b.Surface(ctx, in.Target()); err == nil {
				w.Target, w.TargetOpener = t.PageID(), surface.Opener(t)
			}
		}
	}
}

// locatorOf is the stable locator of the element a write's input names:
// the ref table's for a ref, the input itself for a locator ("" for none,
// or a ref the table does not know).
func (x *Executor) locatorOf(ctx context.Context, c *call, target string) string {
	if target == "" || c.op.NoBrowser || !c.sess.Live() {
		return ""
	}
	ref, err := snapshot.NormalizeRef(target)
	if err != nil {
		return target // a locator already
	}
	t, err := c.env.Tab(ctx)
	if err != nil {
		return ""
	}
	var locator string
	_ = t.Exclusive(ctx, func() error { // the table's owner serialises access to it
		if b, ok := t.Refs().Lookup(ref); ok {
			locator = b.Locator
		}
		return nil
	})
	return locator
}

// typesSecret reports whether the field a write types into is a password
// field.
func (x *Executor) typesSecret(ctx context.Context, c *call, target string) bool {
	if target == "" || c.op.NoBrowser || !c.sess.Live() {
		return false
	}
	t, err := c.env.Tab(ctx)
	if err != nil {
		return false
	}
	return capture.Secret(ctx, t, target)
}

// documentGate refuses a write planned on a document the caller's surface
// no longer shows (STALE_REF, not executed).
func (x *Executor) documentGate(ctx context.Context, c *call, token string) error {
	if token == "" {
		return nil
	}
	t, err := c.env.Tab(ctx)
	if err != nil {
		return err
	}
	if now := capture.DocumentToken(t); now != token {
		return apitype.Errorf(apitype.StaleRef, "surface %s shows another document than the snapshot of token %s; nothing was sent", t.ID, token).
			Fix("take a new snapshot ({1}) and plan on it", apitype.Step{Op: "snapshot"})
	}
	return nil
}

// humanGate refuses every operation on a tab a person has taken over
// (HUMAN_CONTROL, not executed), reads as well as writes: while a person
// has the tab, the agent sees none of what they do. Operations on the
// session (lists, logs, tab management, take-over itself) pass.
func (x *Executor) humanGate(ctx context.Context, c *call) error {
	if c.op.SessionWide || c.op.NoBrowser || !c.sess.Live() {
		return nil
	}
	// The person holds their tabs: their own calls pass, but a crashed
	// or blocked page is still what it is.
	t, err := c.env.Tab(ctx)
	if err != nil {
		return nil // the operation itself will say what is wrong
	}
	if t.IsCrashed() {
		return crashError(t, true)
	}
	// A page stopped in a held dialog of a flood can only be left:
	// navigated, reloaded or closed.
	if t.Blocked() && c.op.Action != ops.ActNavigate && c.op.Action != ops.ActClose {
		return Classify(engine.ErrPageBlocked, ops.Read)
	}
	if !c.sess.AnyHuman() || c.person {
		return nil
	}
	mode, epoch := c.sess.Mode(t.PageID())
	c.epoch = epoch
	if c.sess.Crashed(t.PageID()) {
		return crashError(t, false)
	}
	if mode == sessions.ModeHuman {
		return apitype.Errorf(apitype.HumanControl, "a person has taken over tab %s (epoch %d); nothing was read or sent", t.PageID(), epoch).
			Fix("wait until they hand it back, then take a new snapshot ({1}): its earlier refs will be stale", apitype.Step{Op: "snapshot"})
	}
	return nil
}
