package executor

import (
	"context"
	"net/url"
	"path/filepath"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// What a call's handler gets (handlers.Deps): the caller, the session's
// files and browser, and the executor's stores. Built by the decode stage.

// depsFor is the dependencies of a call's handler.
func (x *Executor) depsFor(c *call, cl *caller) *handlers.Deps {
	d := &handlers.Deps{
		Session: c.sess.Name(), Task: c.task, Caller: cl, Files: filesFor(c), Browsers: browsers{c.sess},
		Rules: x.rules, Settings: x.settings, Control: control{Control: c.sess, q: x.waiting, events: x.events, session: c.sess.Name()},
		Approvals: x.waiting, Grants: taskEnder{x.grants, x.events, x.previews}, Previews: x.previews, Dashboard: x.dashboard, Broker: x.broker,
	}
	if c.req.Confined {
		d.Own = confineStage{x.grants}.owner(c)
	}
	if x.store != nil { // a nil *ledger.Ledger is not a nil OpLog
		d.Ledger = x.store
	}
	return d
}

// filesFor is the files directory a call's handler works in: the
// session's, or for a confined caller (a remote session through the
// broker) a directory of its task's own below it, so that a remote
// session never names, reads or overwrites another's files or the
// person's, and what it records or saves is relayed from its own.
func filesFor(c *call) filesdir.Dir {
	if c.req.Confined {
		return ConfinedFiles(c.sess.FilesDir(), c.task)
	}
	return filesdir.Dir(c.sess.FilesDir())
}

// ConfinedFiles is a confined task's files directory below its session's
// files: files/remote/TASK, the task's name path-escaped (its '/' and
// '#' and any '%' too, so two tasks never share one).
func ConfinedFiles(sessionFiles, task string) filesdir.Dir {
	return filesdir.Dir(filepath.Join(sessionFiles, "remote", url.PathEscape(task)))
}

// FilesOf is the files directory of a confined task of a session (the
// broker serves a remote session's files from it).
func (x *Executor) FilesOf(session, task string) filesdir.Dir {
	return ConfinedFiles(x.sessions.Get(session).FilesDir(), task)
}

// caller is handlers.Caller: the caller of one call in its session.
type caller struct {
	x *Executor
	s *sessions.Session
	c *sessions.Client
}

// Browser is the session's browser, started if need be, in line with the
// settings and with its kept tabs restored.
func (cl *caller) Browser(ctx context.Context) (*engine.Browser, error) {
	b, err := cl.s.Browser(ctx)
	if err != nil {
		return nil, err
	}
	if err := cl.x.applySettings(ctx, b); err != nil {
		return nil, err
	}
	if cl.x.keeper != nil {
		cl.x.keeper.RestoreInto(ctx, cl.s, b)
	}
	return b, nil
}

// Tab is the caller's current surface. A caller without one gets the
// session's first tab (never another caller's choice), which becomes its
// own current surface.
func (cl *caller) Tab(ctx context.Context) (*engine.Surface, error) {
	b, err := cl.Browser(ctx)
	if err != nil {
		return nil, err
	}
	id := cl.c.Current()
	t, err := b.Surface(ctx, id) // "": the first tab
	if err != nil {
		return nil, err
	}
	if id == "" {
		cl.c.SetCurrent(t.ID)
	}
	return t, nil
}

func (cl *caller) Current() string      { return cl.c.Current() }
func (cl *caller) SetCurrent(id string) { cl.c.SetCurrent(id) }
func (cl *caller) Back(open func(id string) bool) string {
	return cl.c.Back(open)
}

func (cl *caller) LastSnapshot(surface string) (string, ops.SnapshotIn, bool) {
	s, ok := cl.c.Last(surface)
	opts, _ := s.Options.(ops.SnapshotIn)
	return s.Text, opts, ok
}

// browsers is handlers.Browsers on a session.
type browsers struct{ s *sessions.Session }

func (b browsers) Attach(ctx context.Context, endpoint string) (*engine.Browser, error) {
	return b.s.Attach(ctx, endpoint)
}
func (b browsers) Close(ctx context.Context) (bool, error) { return b.s.Close(ctx) }
func (b browsers) MarkPersonal()                           { b.s.SetPersonal() }
func (b browsers) Downloads() (*download.Tracker, error)   { return b.s.Downloads() }
