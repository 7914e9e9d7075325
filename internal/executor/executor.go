// Package executor is the one path every operation takes, whatever front
// end it came from: it decodes and validates the input, finds or starts the
// caller's session, bounds the call with a deadline, runs the operation on
// the engine and maps any failure to a registry error. Approval policy,
// grants, take-over epochs and the operation ledger attach here, so front
// ends never change when they arrive.
package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Config configures an executor.
type Config struct {
	// Home is loupe's state directory (LOUPE_HOME): sessions keep their
	// profiles and files under Home/sessions/NAME.
	Home string
	// Chromium is the browser binary to launch ("" finds one).
	Chromium string
	// Headed shows browser windows.
	Headed bool
	// BrowserArgs are extra Chromium flags.
	BrowserArgs []string
	// BrowserLog, if set, receives launched browsers' stderr.
	BrowserLog io.Writer
}

// Executor runs operations for named sessions. It is safe for concurrent
// use.
type Executor struct {
	cfg Config
	reg *ops.Registry

	mu       sync.Mutex // guards sessions
	sessions map[string]*session
}

// session is one named browser session. mu serialises its start and stop;
// operations on a started session do not hold it.
type session struct {
	name string
	dir  string

	mu      sync.Mutex
	browser *engine.Browser
}

// New returns an executor with the full operation registry.
func New(cfg Config) *Executor {
	return &Executor{cfg: cfg, reg: ops.New(), sessions: map[string]*session{}}
}

// Registry returns the operation registry the executor runs.
func (x *Executor) Registry() *ops.Registry { return x.reg }

// Request is one call of an operation.
type Request struct {
	Op      string
	Session string
	// Input is the operation's input as JSON; a pre-decoded input may be
	// given in Decoded instead.
	Input   json.RawMessage
	Decoded any
	// Timeout overrides the operation's default deadline.
	Timeout time.Duration
}

var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidSession reports whether name can name a session: letters, digits,
// '.', '_' and '-', at most 64, so it is always a safe directory name.
func ValidSession(name string) bool { return sessionName.MatchString(name) }

// Decode parses and validates an operation's input without running it.
// Unknown fields are refused: a misspelt option must not be ignored.
func Decode(op *ops.Op, raw json.RawMessage) (any, error) {
	in := op.NewIn()
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(in); err != nil {
			return nil, apitype.Errorf(apitype.BadInput, "%s: bad input: %v", op.Name, err)
		}
	}
	if v, ok := in.(ops.Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// Do runs one operation and returns its output, or an *apitype.Error.
func (x *Executor) Do(ctx context.Context, req Request) (any, error) {
	op, ok := x.reg.Lookup(req.Op)
	if !ok {
		return nil, apitype.Errorf(apitype.BadInput, "unknown operation %q", req.Op)
	}
	if req.Session == "" {
		req.Session = "default"
	}
	if !ValidSession(req.Session) {
		return nil, apitype.Errorf(apitype.BadInput, "session name %q: use letters, digits, '.', '_' or '-' (at most 64)", req.Session)
	}
	in := req.Decoded
	if in == nil {
		var err error
		if in, err = Decode(op, req.Input); err != nil {
			return nil, err
		}
	} else if v, ok := in.(ops.Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, err
		}
	}
	timeout := op.Timeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := x.session(req.Session)
	env := &env{x: x, s: s}
	out, err := op.Run(ctx, env, in)
	if err != nil {
		e := Classify(err, op.KindOf(in))
		if e.Code == apitype.BrowserGone {
			x.dropBrowser(s)
		}
		return nil, e
	}
	return out, nil
}

func (x *Executor) session(name string) *session {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.sessions[name]
	if s == nil {
		s = &session{name: name, dir: filepath.Join(x.cfg.Home, "sessions", name)}
		x.sessions[name] = s
	}
	return s
}

// Sessions lists the sessions with a running browser.
func (x *Executor) Sessions() []apitype.SessionInfo {
	x.mu.Lock()
	list := make([]*session, 0, len(x.sessions))
	for _, s := range x.sessions {
		list = append(list, s)
	}
	x.mu.Unlock()
	out := []apitype.SessionInfo{}
	for _, s := range list {
		s.mu.Lock()
		b := s.browser
		s.mu.Unlock()
		if b == nil {
			continue
		}
		out = append(out, apitype.SessionInfo{Name: s.name, Browser: b.Product(), PID: b.PID(), Attached: !b.Launched(), Tabs: b.TabCount()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close ends every session: launched browsers exit with their process
// trees, attached ones are disconnected.
func (x *Executor) Close(ctx context.Context) error {
	x.mu.Lock()
	list := make([]*session, 0, len(x.sessions))
	for _, s := range x.sessions {
		list = append(list, s)
	}
	x.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(list))
	for i, s := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.close(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (x *Executor) dropBrowser(s *session) {
	s.mu.Lock()
	b := s.browser
	s.browser = nil
	s.mu.Unlock()
	if b != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Close(ctx)
	}
}

func (s *session) close(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.browser == nil {
		return false, nil
	}
	err := s.browser.Close(ctx)
	s.browser = nil
	// The daemon lives long and is mostly idle between sessions: hand the
	// memory of the session's last snapshots back to the system now.
	debug.FreeOSMemory()
	return true, err
}

// browser returns the session's live browser, launching one if needed.
func (x *Executor) browser(ctx context.Context, s *session) (*engine.Browser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.browser; b != nil {
		select {
		case <-b.Done():
			// It died since the last call: start afresh.
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = b.Close(cctx)
			cancel()
			s.browser = nil
		default:
			return b, nil
		}
	}
	bin, err := chromium.Find(x.cfg.Chromium)
	if err != nil {
		return nil, apitype.Wrap(apitype.BrowserStart, err, "%v", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	b, err := engine.Launch(ctx, engine.LaunchOptions{
		Binary: bin, ProfileDir: filepath.Join(s.dir, "profile"), Headed: x.cfg.Headed, Args: x.cfg.BrowserArgs,
		Stderr: x.cfg.BrowserLog,
	})
	if err != nil {
		return nil, err
	}
	if err := b.EnableDownloads(ctx, s.downloadsDir()); err != nil {
		_ = b.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	s.browser = b
	return b, nil
}

// downloadsDir is where the session's downloads land: inside its files
// directory, so file operations can name them.
func (s *session) downloadsDir() string { return filepath.Join(s.dir, "files", "downloads") }

func (x *Executor) attach(ctx context.Context, s *session, endpoint string) (*engine.Browser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.browser != nil {
		return nil, apitype.Errorf(apitype.BadInput, "session %q already has a browser; close it first or pick another --session", s.name)
	}
	b, err := engine.Attach(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	if err := b.EnableDownloads(ctx, s.downloadsDir()); err != nil {
		_ = b.Close(ctx)
		return nil, err
	}
	s.browser = b
	return b, nil
}

// env is the ops.Env of one call.
type env struct {
	x *Executor
	s *session
}

func (e *env) Session() string { return e.s.name }

func (e *env) Browser(ctx context.Context) (*engine.Browser, error) { return e.x.browser(ctx, e.s) }

func (e *env) Tab(ctx context.Context) (*engine.Tab, error) {
	b, err := e.x.browser(ctx, e.s)
	if err != nil {
		return nil, err
	}
	return b.Tab(ctx, "")
}

func (e *env) Attach(ctx context.Context, endpoint string) (*engine.Browser, error) {
	return e.x.attach(ctx, e.s, endpoint)
}

func (e *env) Close(ctx context.Context) (bool, error) { return e.s.close(ctx) }

// FilePath resolves a client's file name inside the session's files
// directory, refusing absolute paths, escapes and symlinks out of it.
func (e *env) FilePath(name string) (string, error) {
	dir := filepath.Join(e.s.dir, "files")
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
	dir := filepath.Join(e.s.dir, "files")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, data, 0o600)
}
