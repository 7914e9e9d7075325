package executor

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/tabturn"
)

// classifyStage gives the run's failure, on the way back, its registry
// code: a write cut short by a take-over or a crash is TAKEN_OVER or
// TAB_CRASHED with its outcome unknown; anything else goes through
// Classify. The error names the operation, the write's id and, for a
// deadline, the deadline.
type classifyStage struct{}

func (classifyStage) name() string { return "classify" }

func (classifyStage) enter(_ context.Context, c *call) (func(*outcome), error) {
	return func(o *outcome) {
		if o.raw == nil {
			return
		}
		var e *apitype.Error
		if c.isWrite() {
			e = tabturn.CutShort(o.cause, c.sess, turn(c.write), o.raw)
		}
		if e == nil {
			e = Classify(o.raw, c.kind)
		}
		e.Op, e.OperationID = c.op.Name, c.write.ID
		if e.Code == apitype.Timeout && e.TimeoutMS == 0 {
			// The deadline that ran out: an operation's own wait (wait
			// --timeout, timeout_ms) when it has one, else the call's.
			e.TimeoutMS = c.timeout.Milliseconds()
			if w, ok := c.in.(interface{ Wait() time.Duration }); ok && w.Wait() > 0 && w.Wait() < c.timeout {
				e.TimeoutMS = w.Wait().Milliseconds()
			}
		}
		o.err = e
	}, nil
}

// Classify maps any error from an operation to a registry error. It is the
// one place raw failures (protocol errors, deadlines, a vanished browser)
// get their codes and hints. For a write whose failure is not known to
// have happened before any effect, not_executed is false: the outcome is
// unknown and must not be replayed blindly.
func Classify(err error, kind ops.Kind) *apitype.Error {
	if e, ok := apitype.As(err); ok {
		if kind == ops.Read {
			e.NotExecuted = true
		}
		return e
	}
	var e *apitype.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e = apitype.Wrap(apitype.Timeout, err, "the operation did not finish in time")
	case errors.Is(err, context.Canceled):
		e = apitype.Wrap(apitype.Timeout, err, "the operation was cancelled")
	case errors.Is(err, engine.ErrPageBlocked):
		e = apitype.Wrap(apitype.PageBlocked, err, "the page opens dialogs without end; loupe holds the last one open, and nothing can be read or sent until the tab navigates, reloads or closes").
			Fix("open another address ({1}), reload ({2}) or close the tab ({3})", apitype.Step{Op: "open"}, apitype.Step{Op: "reload"}, apitype.Step{Op: "tab close"})
	case errors.Is(err, engine.ErrTabCrashed):
		e = apitype.Wrap(apitype.TabCrashed, err, "the tab's renderer crashed during the operation")
	case errors.Is(err, engine.ErrTabClosed), errors.Is(err, cdp.ErrSessionGone):
		e = apitype.Wrap(apitype.SurfaceClosed, err, "the tab closed during the operation")
	case errors.Is(err, cdp.ErrClosed):
		e = apitype.Wrap(apitype.BrowserGone, err, "the browser is gone: %v", err)
	case errors.Is(err, engine.ErrDocumentGone):
		e = apitype.Wrap(apitype.StaleRef, err, "the page navigated while loupe worked on it")
		e.Hint = "take a new snapshot and try again"
	default:
		var ce *cdp.Error
		if errors.As(err, &ce) && strings.Contains(ce.Message, "Target closed") {
			e = apitype.Wrap(apitype.SurfaceClosed, err, "the tab closed during the operation")
		} else {
			e = apitype.Wrap(apitype.Internal, err, "%v", err)
		}
	}
	var partial interface{ Executed() bool }
	// A raw failure of a write — a deadline, the browser or the tab gone
	// under it, anything unforeseen — may have come after its input went
	// out: its outcome is unknown, never "not executed" on a guess.
	if kind == ops.Write && (errors.As(err, &partial) && partial.Executed() || e.Code == apitype.Timeout ||
		e.Code == apitype.Internal || e.Code == apitype.BrowserGone || e.Code == apitype.SurfaceClosed || e.Code == apitype.TabCrashed || e.Code == apitype.PageBlocked) {
		e.NotExecuted = false
	}
	return e
}
