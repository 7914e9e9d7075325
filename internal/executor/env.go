package executor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/settings"
)

// env is the ops.Env of one call: its session and its caller.
type env struct {
	s    *sessions.Session
	c    *sessions.Client
	x    *Executor
	task string // the caller's task, once the call has one
}

func (e *env) Operations() (ops.OpLog, error) { return e.x.opLog() }

func (e *env) Control() ops.Control {
	return control{Control: e.s, q: &e.x.waiting, session: e.s.Name()}
}

func (e *env) Approvals() ops.Approvals { return &e.x.waiting }

func (e *env) Downloads() (*download.Tracker, error) { return e.s.Downloads() }

func (e *env) Grants() ops.Grants { return taskEnder{e.x.grants, e.x.events, e.x.previews} }

func (e *env) Rules() (*policy.Policy, error) {
	if e.x.rules == nil {
		return nil, fmt.Errorf("this process keeps no approval policy")
	}
	return e.x.rules, nil
}

func (e *env) Session() string { return e.s.Name() }

func (e *env) Browser(ctx context.Context) (*engine.Browser, error) {
	b, err := e.s.Browser(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.x.applySettings(ctx, b); err != nil {
		return nil, err
	}
	e.x.restoreInto(ctx, e.s, b)
	return b, nil
}

func (e *env) Settings() *settings.Store { return e.x.settings }

func (e *env) Previews() ops.Previews { return e.x.previews }

func (e *env) Dashboard() ops.Dashboard { return e.x.dashboard }

func (e *env) MarkPersonal() { e.s.SetPersonal() }

func (e *env) LastSnapshot(surface string) (string, bool) {
	s, ok := e.c.Last(surface)
	return s.Text, ok
}

func (e *env) Task() string { return e.task }

// Tab is the caller's current surface. A caller without one gets the
// session's first tab (never another caller's choice), which becomes its
// own current surface.
func (e *env) Tab(ctx context.Context) (*engine.Surface, error) {
	b, err := e.Browser(ctx)
	if err != nil {
		return nil, err
	}
	id := e.c.Current()
	t, err := b.Surface(ctx, id) // "": the first tab
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
// directory, with no-follow semantics: absolute names, names that climb
// out, symlinks anywhere on the way and anything but a regular file are
// refused — and the refusal never says what exists outside the directory.
func (e *env) FilePath(name string) (string, error) {
	dir := e.s.FilesDir()
	bad := func(why string) error {
		return apitype.Errorf(apitype.BadInput, "file %q: %s", name, why).
			Fix("name a file in the session's files directory (" + dir + "), e.g. report.pdf or uploads/report.pdf")
	}
	if name == "" || filepath.IsAbs(name) {
		return "", bad("want a name relative to the session's files directory")
	}
	clean := filepath.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", bad("is outside the session's files directory")
	}
	p := dir
	var fi fs.FileInfo
	for _, part := range append([]string{""}, strings.Split(clean, "/")...) {
		p = filepath.Join(p, part)
		var err error
		if fi, err = os.Lstat(p); err != nil {
			return "", bad("no such file in the session's files directory")
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", bad("is reached through a symlink; loupe follows none in the files directory")
		}
	}
	if !fi.Mode().IsRegular() {
		return "", bad("is not a regular file")
	}
	return p, nil
}

// SaveUploads stores the files a client sent with an upload in a new
// directory of their own under files/uploads, so the page sees each
// file's own name and nothing already there is overwritten.
func (e *env) SaveUploads(files []ops.UploadFile) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	root := filepath.Join(e.s.FilesDir(), "uploads")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("executor: %s is not a directory of loupe's", root)
	}
	dir, err := os.MkdirTemp(root, "up-")
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		if paths[i], err = saveFile(dir, f.Name, f.Data); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// SaveFile writes a new file into the session's own files directory (sub,
// when given, is a subdirectory of it): name must be a plain file name.
// It never follows a symlink and never overwrites: a name already taken
// gets " (1)", " (2)", … before its extension. It returns the path.
func (e *env) SaveFile(name string, data []byte) (string, error) {
	return saveFile(e.s.FilesDir(), name, data)
}

func saveFile(dir, name string, data []byte) (string, error) {
	if name == "" || name != filepath.Base(name) || name[0] == '.' {
		return "", fmt.Errorf("executor: %q is not a plain file name", name)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("executor: %s is not a directory of loupe's", dir)
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(dir, n)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // taken (a file, or a symlink: never written through)
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			os.Remove(p)
			return "", err
		}
		return p, f.Close()
	}
	return "", fmt.Errorf("executor: no free name for %s in %s", name, dir)
}
