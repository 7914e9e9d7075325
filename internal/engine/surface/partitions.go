package surface

import (
	"context"
	"fmt"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/partition"
)

// TabLimit is the most tabs a browser holds; opening one more is refused
// (TAB_LIMIT, not executed): loupe never closes a tab to make room.
const TabLimit = 32

// partitions maps each temp partition of a browser (see package
// partition for the names) to its browser context, made when the
// partition's first tab opens and discarded when its last one closes;
// kept with the browser (engine.Browser.Kept).
type partitions struct {
	mu     sync.Mutex
	byName map[string]string // "temp:x" → browser context id
	setups []func(ctx context.Context, browserContextID string) error
}

// OnNewPartition has f set up each temp partition's browser context
// before its first tab opens: what the browser was told for its default
// context (where downloads go) must hold in every partition too. A setup
// that fails fails the tab's opening, and the context is discarded.
func OnNewPartition(b *engine.Browser, f func(ctx context.Context, browserContextID string) error) {
	p := partitionsOf(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.setups = append(p.setups, f)
}

func partitionsOf(b *engine.Browser) *partitions {
	return b.Kept("surface.partitions", func() any { return &partitions{byName: map[string]string{}} }).(*partitions)
}

// PartitionOf names the partition a tab lives in.
func PartitionOf(b *engine.Browser, t *engine.Surface) string {
	p := partitionsOf(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, id := range p.byName {
		if id == t.BrowserContext() {
			return name
		}
	}
	return partition.Persist
}

// NewTabIn opens a tab at about:blank in a partition (see above) and
// returns it. With TabLimit tabs open it opens nothing.
//
// Each tab loupe opens is a window of its own, as Playwright opens each
// page. A tab behind another in a shared window is not drawn, and
// Chromium 156 (headless, though the page reads itself visible and its
// animation frames run) then answered the input into it slower and
// slower: on the load page clicks in the background tab took 0.1, 0.5
// and 2.5 s where the front tab's took 50 ms, and two agents each in a
// tab of one session made 1.9 operations a second against 27.8 with a
// window each (cmd/load, 2026-12-02). A window costs about 10 MB more
// than a tab (33 against 22 MB per added tab). Tabs a page opens (links
// to _blank, window.open) open where the page puts them.
func NewTabIn(ctx context.Context, b *engine.Browser, part string) (*engine.Surface, error) {
	name, err := partition.Parse(part)
	if err != nil {
		return nil, apitype.Errorf(apitype.BadInput, "%v", err)
	}
	if n := b.TabCount(); n >= TabLimit {
		return nil, apitype.Errorf(apitype.TabLimit, "%d tabs are open, the most a browser holds", n).
			Fix("close a tab you no longer need ({1}; {2} lists them)", apitype.Step{Op: "tab close"}, apitype.Step{Op: "tabs"})
	}
	p := partitionsOf(b)
	p.mu.Lock()
	defer p.mu.Unlock() // held across the creation: one context per name
	p.sweep(ctx, b)
	params := target.CreateTargetParams{URL: "about:blank", NewWindow: ptr(true)}
	if name != partition.Persist {
		id, ok := p.byName[name]
		if !ok {
			res, err := cdpproto.Call(ctx, b.BrowserSession(), target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: ptr(true)})
			if err != nil {
				return nil, err
			}
			id = string(res.BrowserContextID)
			for _, setup := range p.setups {
				if err := setup(ctx, id); err != nil {
					_, _ = cdpproto.Call(ctx, b.BrowserSession(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: cdpproto.BrowserContextID(id)})
					return nil, fmt.Errorf("setting up partition %s: %w", name, err)
				}
			}
			p.byName[name] = id
		}
		params.BrowserContextID = cdpproto.BrowserContextID(id)
	}
	res, err := cdpproto.Call(ctx, b.BrowserSession(), target.CreateTarget, params)
	if err != nil {
		return nil, err
	}
	return b.SurfaceForTarget(ctx, string(res.TargetID))
}

// sweep discards the browser context of every temp partition without a
// tab left (however its last tab closed: by loupe, the page or a
// person). Caller holds p.mu.
func (p *partitions) sweep(ctx context.Context, b *engine.Browser) {
	if len(p.byName) == 0 {
		return
	}
	live := map[string]bool{}
	for _, t := range b.Pages() {
		live[t.BrowserContext()] = true
	}
	for name, id := range p.byName {
		if live[id] {
			continue
		}
		delete(p.byName, name)
		// A context already gone (its tabs closed by the browser) is gone
		// either way: the error says nothing to act on.
		_, _ = cdpproto.Call(ctx, b.BrowserSession(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: cdpproto.BrowserContextID(id)})
	}
}

// Sweep discards the temp partitions that have no tab left.
func Sweep(ctx context.Context, b *engine.Browser) {
	p := partitionsOf(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweep(ctx, b)
}

func ptr[T any](v T) *T { return &v }

// SetCookies writes cookies into the persist partition (the session's
// profile).
func SetCookies(ctx context.Context, b *engine.Browser, cookies []*network.CookieParam) error {
	if len(cookies) == 0 {
		return nil
	}
	_, err := cdpproto.Call(ctx, b.BrowserSession(), storage.SetCookies, storage.SetCookiesParams{Cookies: cookies})
	return err
}
