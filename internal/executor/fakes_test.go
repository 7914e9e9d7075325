package executor

import (
	"context"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// fakePage is a pageView for stage tests: a tab as a stage reads it,
// with no browser behind it.
type fakePage struct {
	id, url, opener, doc string
	crashed, blocked     bool
	locators             map[string]string // ref → locator
	secrets              map[string]bool   // target → is a password field
}

func (p *fakePage) PageID() string        { return p.id }
func (p *fakePage) URL() string           { return p.url }
func (p *fakePage) Opener() string        { return p.opener }
func (p *fakePage) IsCrashed() bool       { return p.crashed }
func (p *fakePage) Blocked() bool         { return p.blocked }
func (p *fakePage) DocumentToken() string { return p.doc }
func (p *fakePage) Element(_ context.Context, ref string) (string, string) {
	if l, ok := p.locators[ref]; ok {
		return "button \"Fake\" [ref=" + ref + "]", l
	}
	return "", ""
}
func (p *fakePage) Secret(_ context.Context, target string) bool { return p.secrets[target] }

// fakeCall is a call as the decode stage would make it for op and in,
// in a session of its own with no browser; page is the tab it works in
// (nil: no browser runs) and tabs the session's other tabs by id.
func fakeCall(t *testing.T, op *ops.Op, in any, page *fakePage, tabs ...*fakePage) *call {
	t.Helper()
	s := sessions.New(sessions.Config{Home: t.TempDir()}).Get("default")
	if in == nil {
		in = op.NewIn()
	}
	c := &call{op: op, in: in, kind: op.KindOf(in), sess: s, client: s.Client(""), task: "cli", timeout: 5 * time.Second}
	c.deps = &handlers.Deps{Session: s.Name(), Task: c.task}
	c.page = func(context.Context) (pageView, error) {
		if page == nil {
			return nil, nil
		}
		if c.client.Current() == "" {
			c.client.SetCurrent(page.id) // as the caller's first tab becomes its current one
		}
		return page, nil
	}
	c.pageByID = func(_ context.Context, id string) (pageView, error) {
		for _, p := range append(tabs, page) {
			if p != nil && p.id == id {
				return p, nil
			}
		}
		return nil, apitype.Errorf(apitype.SurfaceNotFound, "no surface %s", id)
	}
	return c
}

// describe makes a descriptor of a fake operation.
func describe[In any](name string, kind ops.Kind, traits ...func(*ops.Op)) *ops.Op {
	o := ops.Describe[In, nothing](name, name, kind, 5*time.Second)
	for _, f := range traits {
		f(o)
	}
	return o
}

// Traits of fake operations.
func as(a ops.Action) func(*ops.Op) { return func(o *ops.Op) { o.Action = a } }
func sessionWide(o *ops.Op)         { o.SessionWide = true }
func noBrowser(o *ops.Op)           { o.NoBrowser = true }

// enter enters one stage and returns its leave (nil if none) and error.
func enter(t *testing.T, s stage, c *call) (func(*outcome), error) {
	t.Helper()
	return s.enter(context.Background(), c)
}

// wantCode fails unless err is a registry error of code ("" : nil).
func wantCode(t *testing.T, err error, code apitype.Code) *apitype.Error {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("want no error, got %v", err)
		}
		return nil
	}
	e, ok := apitype.As(err)
	if !ok || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	return e
}
