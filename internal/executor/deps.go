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
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// What a call's handler gets (handlers.Deps): the caller, the session's
// files and browser, and the executor's stores. Built by the decode stage.

// depsFor is the dependencies of a call's handler.
func (x *Executor) depsFor(c *call, cl *caller) *handlers.Deps {
	d := &handlers.Deps{
		Session: c.sess.Name(), Task: c.task, Caller: cl, Files: files{c.sess}, Browsers: browsers{c.sess},
		Rules: x.rules, Settings: x.settings, Control: control{Control: c.sess, q: &x.waiting, session: c.sess.Name()},
		Approvals: &x.waiting, Grants: taskEnder{x.grants, x.events, x.previews}, Previews: x.previews, Dashboard: x.dashboard,
	}
	if x.store != nil { // a nil *ledger.Ledger is not a nil OpLog
		d.Ledger = x.store
	}
	return d
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
	cl.x.restoreInto(ctx, cl.s, b)
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

func (cl *caller) LastSnapshot(surface string) (string, bool) {
	s, ok := cl.c.Last(surface)
	return s.Text, ok
}

// browsers is handlers.Browsers on a session.
type browsers struct{ s *sessions.Session }

func (b browsers) Attach(ctx context.Context, endpoint string) (*engine.Browser, error) {
	return b.s.Attach(ctx, endpoint)
}
func (b browsers) Close(ctx context.Context) (bool, error) { return b.s.Close(ctx) }
func (b browsers) MarkPersonal()                           { b.s.SetPersonal() }
func (b browsers) Downloads() (*download.Tracker, error)   { return b.s.Downloads() }

// files is handlers.Files: the session's files directory.
type files struct{ s *sessions.Session }

// Path resolves a client's file name inside the session's files
// directory, with no-follow semantics: absolute names, names that climb
// out, symlinks anywhere on the way and anything but a regular file are
// refused — and the refusal never says what exists outside the directory.
func (f files) Path(name string) (string, error) {
	dir := f.s.FilesDir()
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
func (f files) SaveUploads(sent []handlers.UploadFile) ([]string, error) {
	if len(sent) == 0 {
		return nil, nil
	}
	root := filepath.Join(f.s.FilesDir(), "uploads")
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
	paths := make([]string, len(sent))
	for i, u := range sent {
		if paths[i], err = saveFile(dir, u.Name, u.Data); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// Save writes a new file into the session's own files directory (sub,
// when given, is a subdirectory of it): name must be a plain file name.
// It never follows a symlink and never overwrites: a name already taken
// gets " (1)", " (2)", … before its extension. It returns the path.
func (f files) Save(name string, data []byte) (string, error) {
	return saveFile(f.s.FilesDir(), name, data)
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
