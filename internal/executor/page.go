package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// pageView is what the stages read of the tab a call works in: enough to
// gate, describe and account for a write, and no more, so that each stage
// can be tested against a fake tab without a browser.
type pageView interface {
	// PageID is the surface id of the tab (the page the surface is in).
	PageID() string
	// URL is the tab's address.
	URL() string
	// Opener is the tab that opened this one ("" if none).
	Opener() string
	// IsCrashed reports whether its renderer is down; Blocked whether it
	// is held in a dialog of a flood.
	IsCrashed() bool
	Blocked() bool
	// DocumentToken names the document the surface shows.
	DocumentToken() string
	// Element is how the snapshot printed a ref's element (its line) and
	// the stable locator the ref table has for it ("" for none, or a ref
	// it does not know).
	Element(ctx context.Context, ref string) (line, locator string)
	// Secret reports whether target is a password field.
	Secret(ctx context.Context, target string) bool
}

// livePage is a pageView of a surface of a running browser.
type livePage struct{ t *engine.Surface }

func (p livePage) PageID() string        { return p.t.PageID() }
func (p livePage) URL() string           { return p.t.URL() }
func (p livePage) Opener() string        { return surface.Opener(p.t) }
func (p livePage) IsCrashed() bool       { return p.t.IsCrashed() }
func (p livePage) Blocked() bool         { return p.t.Blocked() }
func (p livePage) DocumentToken() string { return capture.DocumentToken(p.t) }

func (p livePage) Element(ctx context.Context, ref string) (line, locator string) {
	_ = p.t.Exclusive(ctx, func() error { // the table's owner serialises access to it
		if b, ok := p.t.Refs().Lookup(ref); ok {
			line, locator = snapshot.ElementLine(b.Role, b.Name, ref), b.Locator
		}
		return nil
	})
	return line, locator
}

func (p livePage) Secret(ctx context.Context, target string) bool {
	return capture.Secret(ctx, p.t, target)
}

// pages gives a call the tab it works in, and tabs by id, from its
// session's running browser — and never starts one: no browser, or an
// operation that must not start one, is nil, nil.
func (c *call) livePages(cl *caller) {
	c.page = func(ctx context.Context) (pageView, error) {
		if c.op.NoBrowser || !c.sess.Live() {
			return nil, nil
		}
		t, err := cl.Tab(ctx)
		if err != nil {
			return nil, err
		}
		return livePage{t}, nil
	}
	c.pageByID = func(ctx context.Context, id string) (pageView, error) {
		if c.op.NoBrowser || !c.sess.Live() {
			return nil, nil
		}
		b, err := cl.Browser(ctx)
		if err != nil {
			return nil, err
		}
		t, err := b.Surface(ctx, id)
		if err != nil {
			return nil, err
		}
		return livePage{t}, nil
	}
}

// refOrLocator tells a ref from a locator: the ref's normal form, or ""
// for a locator.
func refOrLocator(target string) string {
	ref, err := locator.NormalizeRef(target)
	if err != nil {
		return ""
	}
	return ref
}
