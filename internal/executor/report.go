package executor

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/chooser"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/textdiff"
	"github.com/loupe-dev/loupe/internal/wire"
)

// commitWait bounds the wait for a navigation a write set off to commit.
const commitWait = 2 * time.Second

// dialogWindow is how long after its input an input write (a click,
// keys, a selection) is reported with a JavaScript dialog the page opens
// a moment later: a handler that calls alert() from a timer or after a
// promise. It counts from the input (Surface.LastInput; the handler's
// start for a write that notes none), so the wait after the page went
// quiet is only what is left of it, and it ends the moment a dialog
// opens. A dialog from a zero-delay timer or a microtask already opens
// within the click's quiet wait. The leading peer waits a second after
// every action; this window was 150 ms counted from the report, which
// tripled a click's time (58 → 209 ms on the frames page).
const dialogWindow = 75 * time.Millisecond

// Caps of a report's diff.
const (
	diffLines = 40
	diffChars = 4000
)

// state is what a write's report compares: the caller's surface and its
// URL, the page roots, and the dialog and download counts. Taking it makes
// no protocol call.
type state struct {
	surface, url string
	st           status.Status
	downloads    int64 // begun so far
	// none: there was no browser before the write (the pages it brings up
	// are not "opened" by it).
	none bool
}

// reportStage takes the session's state before a write that asks for a
// report and, on the way back, once the write succeeded, says what it
// changed. Without a browser yet, everything the write brings up is new.
type reportStage struct{ x *Executor }

func (reportStage) name() string { return "report" }

func (s reportStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || c.req.Report == nil {
		return nil, nil
	}
	if c.before = s.x.state(ctx, c); c.before == nil && !c.op.NoBrowser {
		c.before = &state{none: true}
	}
	if c.before == nil {
		return nil, nil
	}
	return func(o *outcome) {
		if o.err != nil {
			return
		}
		ctx, cancel := c.bounded(context.WithoutCancel(ctx))
		defer cancel()
		o.report = s.x.report(ctx, c, c.before, c.req.Report)
	}, nil
}

// state takes the session's state for a write's report; nil when there is
// no browser (an operation that must not start one, such as close).
func (x *Executor) state(ctx context.Context, c *call) *state {
	// No browser yet (or one that has gone, which the operation itself
	// must report): nothing to compare, and none is started for it.
	if c.op.NoBrowser || !c.sess.Live() {
		return nil
	}
	b, err := c.sess.Browser(ctx)
	if err != nil {
		return nil
	}
	s := &state{surface: c.client.Current(), st: status.Of(b)}
	if dl, err := c.sess.Downloads(); err == nil {
		s.downloads = dl.Count()
	}
	if s.surface != "" {
		if t, err := b.Surface(ctx, s.surface); err == nil {
			s.url = t.URL()
		}
	}
	return s
}

// report says what a write changed, taken right after it settled, in the
// same call: a navigation of the caller's surface, a change of that
// surface, pages opened or closed, dialogs answered, downloads begun, and
// the change to the caller's last snapshot of its surface (or, asked for,
// a new snapshot). Changes other callers made meanwhile show too: the
// report describes the session, not only this write.
func (x *Executor) report(ctx context.Context, c *call, before *state, o *apitype.ReportOptions) *apitype.Report {
	// A write that set off a navigation (a link, a submit) is reported
	// with the page it led to, once that has committed (bounded).
	if c.sess.Live() && c.client.Current() != "" {
		if b, err := c.sess.Browser(ctx); err == nil {
			if t, err := b.Surface(ctx, c.client.Current()); err == nil {
				nav.AwaitCommit(ctx, t, commitWait)
			}
		}
	}
	if c.op.Action == ops.ActInput && c.sess.Live() {
		// A dialog a handler opens a moment after the input (a timer, a
		// microtask after a fetch) belongs to this write's report: wait
		// for one until dialogWindow after the input, unless one came.
		if b, err := c.sess.Browser(ctx); err == nil {
			from := c.ran
			if t, err := b.Surface(ctx, c.client.Current()); err == nil && t.LastInput().After(from) {
				from = t.LastInput()
			}
			if wait := dialogWindow - time.Since(from); wait > 0 {
				b.Events().AwaitDialog(ctx, before.st.Dialogs, wait)
			}
		}
	}
	after := x.state(ctx, c)
	if after == nil {
		return &apitype.Report{}
	}
	r := compare(before, after)
	if b, err := c.sess.Browser(ctx); err == nil && after.surface != "" {
		if t, err := b.Surface(ctx, after.surface); err == nil {
			if _, ok := chooser.Of(b).Pending(t.PageID()); ok {
				r.FileChooser = "pending"
			}
		}
	}
	if n := int(after.st.Dialogs - before.st.Dialogs); n > 0 {
		if b, err := c.sess.Browser(ctx); err == nil {
			recs := b.Events().Dialogs()
			for _, d := range recs[max(0, len(recs)-n):] {
				r.Dialogs = append(r.Dialogs, apitype.ReportDialog{SurfaceID: d.SurfaceID, Type: d.Type, Message: d.Message, Action: d.Action})
			}
		}
	}
	if after.surface == "" || !o.Diff && !o.Snapshot {
		return r
	}
	last, ok := c.client.Last(after.surface)
	if !o.Snapshot && !ok {
		r.NoBaseline = true
		return r
	}
	in, _ := last.Options.(ops.SnapshotIn)
	if o.Snapshot {
		// A whole new snapshot (a navigation's) is of the whole page, not
		// shaped like the caller's last (an interactive one would hide
		// the new page's text); a diff compares like with like.
		in = ops.SnapshotIn{}
	}
	// A grep or since read was remembered whole: the report compares
	// whole pages.
	in.Grep, in.Since = "", ""
	if o.MaxChars > 0 {
		in.MaxChars = o.MaxChars
	}
	snap, err := x.snapshot(ctx, c, in)
	switch {
	case err != nil:
		if e, ok := apitype.As(err); ok {
			r.SnapshotError = e.Error()
		} else {
			r.SnapshotError = err.Error()
		}
	case o.Snapshot:
		r.Snapshot = &apitype.ReportSnapshot{Text: body(snap.Snapshot.Text), Chars: snap.Chars, Truncated: snap.Truncated}
	default:
		r.Diff = diffOf(last.Text, body(snap.Snapshot.Text))
	}
	return r
}

// compare is what changed in the session between two states: the
// caller's surface switched or navigated, pages opened and closed (none
// is "opened" by the write that started the browser), downloads begun.
func compare(before, after *state) *apitype.Report {
	r := &apitype.Report{Surface: after.surface}
	if before.surface != after.surface {
		r.SwitchedFrom = before.surface
	} else if after.url != before.url && after.url != "" {
		r.Navigated = after.url
	}
	for _, p := range after.st.Pages {
		if !before.none && !slices.Contains(before.st.Pages, p) {
			r.Opened = append(r.Opened, p)
		}
	}
	for _, p := range before.st.Pages {
		if !slices.Contains(after.st.Pages, p) {
			r.Closed = append(r.Closed, p)
		}
	}
	r.DownloadsStarted = int(after.downloads - before.downloads)
	return r
}

// diffOf is the change from the caller's last snapshot to the page now,
// bounded (diffLines, diffChars).
func diffOf(last, now string) *apitype.Diff {
	d := textdiff.Lines(last, now)
	out := &apitype.Diff{Added: d.Added, Removed: d.Removed}
	if d.Added+d.Removed > 0 {
		out.Lines = strings.TrimSuffix(d.Format(diffLines, diffChars), "\n")
	}
	return out
}

// snapshot takes a snapshot of the caller's surface for a report and
// keeps it as the caller's last.
func (x *Executor) snapshot(ctx context.Context, c *call, in ops.SnapshotIn) (*ops.SnapshotOut, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	out, err := x.handlers["snapshot"].Run(ctx, c.deps, &in)
	if err != nil {
		return nil, Classify(err, ops.Read)
	}
	snap := out.(*ops.SnapshotOut)
	c.client.Remember(snap.SurfaceID, sessions.Snapshot{Options: in, Text: body(snap.Snapshot.Text)})
	return snap, nil
}

// body drops a snapshot's size footer and its last newline.
func body(t string) string { return strings.TrimSuffix(wire.WithoutFooter(t), "\n") }
