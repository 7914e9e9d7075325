package restore

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/partition"
	"github.com/loupe-dev/loupe/internal/viewport"
)

// tabs is what a browser keeps of its tabs for restore: the placeholders
// not loaded yet and each tab's viewport preference, by page surface id.
// It lives and dies with the browser (engine.Browser.Kept).
type tabs struct {
	mu       sync.Mutex
	pending  map[string]*placeholder
	viewport map[string]viewport.Viewport
}

// placeholder is a restored tab not loaded yet; sem lets one caller load
// it while the others wait (by their own deadlines).
type placeholder struct {
	entry Entry
	sem   chan struct{}
	done  bool
}

func tabsOf(b *engine.Browser) *tabs {
	return b.Kept("restore", func() any {
		return &tabs{pending: map[string]*placeholder{}, viewport: map[string]viewport.Viewport{}}
	}).(*tabs)
}

// Restore brings a session's kept tabs back into a browser that has just
// started, in their order, as placeholders: the browser's first, blank,
// tab becomes the first of them, and a new tab opens for each of the
// others (one at a time, so that their surface ids follow their order).
// It returns the tabs, one per entry, as far as it got.
func Restore(ctx context.Context, b *engine.Browser, entries []Entry) ([]*engine.Surface, error) {
	ts := tabsOf(b)
	out := make([]*engine.Surface, 0, len(entries))
	pages := b.Pages()
	for i, e := range entries {
		var t *engine.Surface
		if i == 0 && len(pages) == 1 && pages[0].URL() == "about:blank" {
			t = pages[0]
		} else {
			var err error
			if t, err = surface.NewTab(ctx, b); err != nil {
				return out, fmt.Errorf("restoring tab %d of %d: %w", i+1, len(entries), err)
			}
		}
		ts.mu.Lock()
		ts.pending[t.ID] = &placeholder{entry: e, sem: make(chan struct{}, 1)}
		if e.Viewport != nil {
			ts.viewport[t.ID] = *e.Viewport
		}
		ts.mu.Unlock()
		out = append(out, t)
	}
	return out, nil
}

// Pending returns what a placeholder tab will load, while it has not.
func Pending(b *engine.Browser, page string) (Entry, bool) {
	ts := tabsOf(b)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if p := ts.pending[page]; p != nil && !p.done {
		return p.entry, true
	}
	return Entry{}, false
}

// ViewportOf is a tab's viewport preference, if it has one.
func ViewportOf(b *engine.Browser, page string) (viewport.Viewport, bool) {
	ts := tabsOf(b)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	v, ok := ts.viewport[page]
	return v, ok
}

// Forget drops what is kept of tabs that have closed.
func Forget(b *engine.Browser, live func(page string) bool) {
	ts := tabsOf(b)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for id := range ts.pending {
		if !live(id) {
			delete(ts.pending, id)
		}
	}
	for id := range ts.viewport {
		if !live(id) {
			delete(ts.viewport, id)
		}
	}
}

// Load loads a placeholder tab, once: its viewport preference is applied
// and its address opened — for a preview, the address authorise gives its
// file now (a preview's token never outlives its daemon). A tab that is
// not a placeholder, or no longer, is left as it is. A load that fails
// still uses the placeholder up (the tab shows the browser's error page,
// as a person's would): its error is the caller's to report. With open
// false only the viewport is applied: the caller is about to show
// another document in the tab.
func Load(ctx context.Context, b *engine.Browser, t *engine.Surface, open bool, authorise func(file string) (string, error)) error {
	ts := tabsOf(b)
	ts.mu.Lock()
	p := ts.pending[t.PageID()]
	ts.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.sem }()
	ts.mu.Lock()
	done := p.done
	ts.mu.Unlock()
	if done {
		return nil
	}
	// Used up when this load ends, however it ends; callers behind it
	// wait on sem until then.
	defer func() {
		ts.mu.Lock()
		p.done = true
		delete(ts.pending, t.PageID())
		ts.mu.Unlock()
	}()
	e := p.entry
	if e.Viewport != nil {
		if err := applyViewport(ctx, t, *e.Viewport); err != nil {
			return fmt.Errorf("restoring the viewport of tab %s: %w", t.PageID(), err)
		}
	}
	if !open {
		return nil
	}
	address := e.URL
	if e.Preview != "" {
		u, err := authorise(e.Preview)
		if err != nil {
			return fmt.Errorf("tab %s was restored as a preview of %s, which cannot be authorised again: %w", t.PageID(), e.Preview, err)
		}
		address = u
	}
	if address == "" || address == "about:blank" {
		return nil
	}
	if _, err := nav.Navigate(ctx, t, address); err != nil {
		return fmt.Errorf("tab %s was restored at %s: %w", t.PageID(), address, err)
	}
	return nil
}

// SetViewport applies a viewport preference to a tab and keeps it (nil
// clears it: the window's own size again).
func SetViewport(ctx context.Context, b *engine.Browser, t *engine.Surface, v *viewport.Viewport) error {
	if v == nil {
		if _, err := cdpproto.Call(ctx, t.Session(), emulation.ClearDeviceMetricsOverride, cdpproto.Empty{}); err != nil {
			return err
		}
	} else if err := applyViewport(ctx, t, *v); err != nil {
		return err
	}
	ts := tabsOf(b)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if v == nil {
		delete(ts.viewport, t.PageID())
	} else {
		ts.viewport[t.PageID()] = *v
	}
	return nil
}

func applyViewport(ctx context.Context, t *engine.Surface, v viewport.Viewport) error {
	_, err := cdpproto.Call(ctx, t.Session(), emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(v.Width), Height: int64(v.Height), DeviceScaleFactor: v.Scale, Mobile: v.Mobile})
	return err
}

// Kept is a browser's persist-partition tabs as the tabs file keeps them,
// in order: each with the task that owns it (owner), its address and
// title — or the file it previews (previewed), or, for a placeholder not
// loaded yet, what it will load — and its viewport preference. Tabs of
// temp partitions, and tabs at addresses not kept (Keepable), are left
// out; so is what is kept of tabs that have closed.
func Kept(b *engine.Browser, owner func(page string) string, previewed func(page, url string) (string, bool)) []Entry {
	pages := b.Pages()
	live := make(map[string]bool, len(pages))
	for _, t := range pages {
		live[t.ID] = true
	}
	Forget(b, func(id string) bool { return live[id] })
	var out []Entry
	for _, t := range pages {
		if len(out) == MaxTabs {
			break
		}
		if surface.PartitionOf(b, t) != partition.Persist {
			continue // a temp: partition's tabs are gone by design
		}
		task := owner(t.ID)
		if len(task) > MaxTask {
			task = ""
		}
		if e, ok := Pending(b, t.ID); ok {
			e.Task = task
			out = append(out, e)
			continue
		}
		e := Entry{Task: task, URL: t.URL(), Title: clip(t.Title(), MaxTitle)}
		if file, ok := previewed(t.ID, e.URL); ok {
			e.URL, e.Preview = "", file
		} else if !Keepable(e.URL) || len(e.URL) > MaxURL {
			continue
		}
		if v, ok := ViewportOf(b, t.ID); ok {
			e.Viewport = &v
		}
		out = append(out, e)
	}
	return out
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
