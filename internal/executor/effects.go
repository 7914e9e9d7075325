package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// effectsStage does, on the way back, what a call's success means beyond
// its output, each by a trait of the operation or its input: a tab a
// write opened (ops.TabOpener) is its task's and loupe's own, a snapshot
// (Op.Snapshot) is the caller's last of its surface, a change of the
// settings or the policy (Op.Settings) is published. A call that found
// the browser gone drops the session's browser, for the next call to
// start another.
type effectsStage struct{ x *Executor }

func (effectsStage) name() string { return "effects" }

func (s effectsStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	return func(o *outcome) {
		if o.err != nil {
			if o.err.Code == apitype.BrowserGone {
				c.sess.Drop()
			}
			return
		}
		if o, ok := c.in.(ops.TabOpener); c.isWrite() && ok && o.OpensTab() {
			ctx, cancel := c.bounded(context.WithoutCancel(ctx))
			defer cancel()
			if t, err := c.page(ctx); err == nil && t != nil {
				if c.write.Task != "" {
					s.x.grants.Own(c.sess.Name(), c.write.Task, t.PageID())
				}
				c.sess.MarkOwn(t.PageID())
			}
		}
		if c.op.Snapshot {
			remember(c, o.out)
		}
		if c.isWrite() && c.op.Settings {
			// Pages that show them (the dashboard) read them again.
			s.x.events.Publish(events.Event{Kind: events.SettingsChanged, Session: c.sess.Name(), Op: c.op.Name})
		}
	}, nil
}

// remember keeps a snapshot as its caller's last of that surface, for the
// reports of the caller's next writes.
func remember(c *call, out any) {
	snap, ok := out.(*ops.SnapshotOut)
	in, _ := c.in.(*ops.SnapshotIn)
	if !ok || in == nil {
		return
	}
	text := snap.Snapshot.Text
	if snap.Full != "" {
		text = snap.Full // a grep or since read: the caller saw the page whole
	}
	c.client.Remember(snap.SurfaceID, sessions.Snapshot{Options: *in, Text: body(text)})
}
