package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// env is the ops.Env of one call: its session and its caller.
type env struct {
	s *sessions.Session
	c *sessions.Client
	x *Executor
}

func (e *env) Operations() (ops.OpLog, error) { return e.x.opLog() }

func (e *env) Control() ops.Control {
	return control{Control: e.s, q: &e.x.waiting, session: e.s.Name()}
}

func (e *env) Approvals() ops.Approvals { return &e.x.waiting }

func (e *env) Downloads() (*download.Tracker, error) { return e.s.Downloads() }

func (e *env) Grants() ops.Grants { return taskEnder{e.x.grants, e.x.events} }

func (e *env) Rules() (*policy.Policy, error) {
	if e.x.rules == nil {
		return nil, fmt.Errorf("this process keeps no approval policy")
	}
	return e.x.rules, nil
}

func (e *env) Session() string { return e.s.Name() }

func (e *env) Browser(ctx context.Context) (*engine.Browser, error) { return e.s.Browser(ctx) }

// Tab is the caller's current surface. A caller without one gets the
// session's first tab (never another caller's choice), which becomes its
// own current surface.
func (e *env) Tab(ctx context.Context) (*engine.Tab, error) {
	b, err := e.s.Browser(ctx)
	if err != nil {
		return nil, err
	}
	id := e.c.Current()
	t, err := b.Tab(ctx, id) // "": the first tab
	if err != nil {
		return nil, err
	}
	if id == "" {
		e.c.SetCurrent(t.ID)
	}
	return t, nil
}

func (e *env) Current() string { return e.c.Current() }

func (e *env) SetCurrent(id string) { e.c.SetCurrent(id) }

func (e *env) Attach(ctx context.Context, endpoint string) (*engine.Browser, error) {
	return e.s.Attach(ctx, endpoint)
}

func (e *env) Close(ctx context.Context) (bool, error) { return e.s.Close(ctx) }

// FilePath resolves a client's file name inside the session's files
// directory, refusing absolute paths, escapes and symlinks out of it.
func (e *env) FilePath(name string) (string, error) {
	dir := e.s.FilesDir()
	if name == "" || filepath.IsAbs(name) {
		return "", apitype.Errorf(apitype.BadInput, "file %q: name a file in the session's files directory (%s)", name, dir)
	}
	p := filepath.Join(dir, filepath.Clean(name))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", apitype.Errorf(apitype.BadInput, "file %q: %v", name, err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", apitype.Errorf(apitype.BadInput, "file %q: %v", name, err)
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", apitype.Errorf(apitype.BadInput, "file %q is outside the session's files directory", name)
	}
	return real, nil
}

// SaveFile writes into the session's own files directory only: name must be
// a plain file name.
func (e *env) SaveFile(name string, data []byte) (string, error) {
	if name == "" || name != filepath.Base(name) || name[0] == '.' {
		return "", fmt.Errorf("executor: %q is not a plain file name", name)
	}
	dir := e.s.FilesDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, data, 0o600)
}
