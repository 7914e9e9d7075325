package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
)

// NavResult is the outcome of a navigation.
type NavResult struct {
	Surface string `json:"surface"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	// Loaded is false when the document committed but its load event had
	// not fired when the deadline came (a slow subresource, say).
	Loaded bool `json:"loaded"`
}

// sameDocWait bounds the wait for a same-document navigation's event.
const sameDocWait = 2 * time.Second

// navWatch follows the main frame's navigation events from before a
// navigation starts, so none is missed.
type navWatch struct {
	t      *Tab
	events <-chan cdp.Event
	cancel func()
}

func (t *Tab) watchNav() *navWatch {
	s := t.sess
	if f, ok := t.frameState(t.root); ok {
		s = f.sess // a frame surface's events come from the session hosting it
	}
	ev, cancel := s.Listen("Page.frameNavigated", "Page.navigatedWithinDocument", "Page.lifecycleEvent")
	return &navWatch{t: t, events: ev, cancel: cancel}
}

// commit waits for the main frame to commit a new document (returning its
// loader id) or to navigate within its document (returning "").
func (n *navWatch) commit(ctx context.Context) (loader string, restored bool, err error) {
	main := n.t.rootFrame()
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return "", false, ErrTabClosed
			}
			switch ev.Method {
			case "Page.frameNavigated":
				var e struct {
					Frame struct {
						ID       string `json:"id"`
						LoaderID string `json:"loaderId"`
					} `json:"frame"`
					Type string `json:"type"`
				}
				if jsonv2.Unmarshal(ev.Params, &e) == nil && e.Frame.ID == main {
					return e.Frame.LoaderID, e.Type == "BackForwardCacheRestore", nil
				}
			case "Page.navigatedWithinDocument":
				var e struct {
					FrameID string `json:"frameId"`
				}
				if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == main {
					return "", false, nil
				}
			}
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
	}
}

// load waits for the load event of the given document of the main frame.
// It reports false (not an error) when ctx ends first.
func (n *navWatch) load(ctx context.Context, loader string) (bool, error) {
	main := n.t.rootFrame()
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return false, ErrTabClosed
			}
			if ev.Method != "Page.lifecycleEvent" {
				continue
			}
			var e struct {
				FrameID  string `json:"frameId"`
				LoaderID string `json:"loaderId"`
				Name     string `json:"name"`
			}
			if jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == main && e.LoaderID == loader && e.Name == "load" {
				return true, nil
			}
		case <-ctx.Done():
			return false, nil
		}
	}
}

// Navigate loads url in the tab and waits for its load event (bounded by
// ctx). A URL the browser cannot load is NAVIGATION_FAILED with the
// network error.
func (t *Tab) Navigate(ctx context.Context, url string) (*NavResult, error) {
	if err := t.pageOnly("navigate"); err != nil {
		return nil, err
	}
	t.op.Lock()
	defer t.op.Unlock()
	w := t.watchNav()
	defer w.cancel()
	res, err := cdpproto.Call(ctx, t.sess, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return nil, err
	}
	if res.ErrorText != "" {
		return nil, apitype.Errorf(apitype.NavigationFailed, "%s: %s", url, res.ErrorText)
	}
	loaded := true
	if res.LoaderID != "" {
		if loaded, err = w.load(ctx, string(res.LoaderID)); err != nil {
			return nil, err
		}
	} else {
		// A navigation within the document (a #fragment) has no load: its
		// navigatedWithinDocument event says where the page is, and may
		// trail the reply. Bounded: the page need not report one (the
		// same URL again).
		cctx, cancel := context.WithTimeout(ctx, sameDocWait)
		_, _, _ = w.commit(cctx)
		cancel()
	}
	return t.navResult(ctx, loaded), nil
}

// navResult reports where the tab is now. The title is asked for, because
// targetInfoChanged events may trail the load event.
func (t *Tab) navResult(ctx context.Context, loaded bool) *NavResult {
	title, url := t.info()
	if f, ok := t.frameState(t.rootFrame()); ok && f.url != "" {
		url = f.url
	}
	if ti, err := cdpproto.Call(ctx, t.b.conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(t.TargetID)}); err == nil && ti.TargetInfo != nil {
		title = ti.TargetInfo.Title
		t.setInfo(title, url)
	}
	return &NavResult{Surface: t.ID, URL: url, Title: title, Loaded: loaded}
}

// History moves back (delta -1) or forward (+1) in the tab's history.
func (t *Tab) History(ctx context.Context, delta int) (*NavResult, error) {
	if err := t.pageOnly("go back or forward"); err != nil {
		return nil, err
	}
	t.op.Lock()
	defer t.op.Unlock()
	h, err := cdpproto.Call(ctx, t.sess, page.GetNavigationHistory, cdpproto.Empty{})
	if err != nil {
		return nil, err
	}
	i := int(h.CurrentIndex) + delta
	if i < 0 || i >= len(h.Entries) {
		dir := "back"
		if delta > 0 {
			dir = "forward"
		}
		return nil, apitype.Errorf(apitype.NavigationFailed, "there is no page to go %s to", dir)
	}
	w := t.watchNav()
	defer w.cancel()
	if _, err := cdpproto.Call(ctx, t.sess, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
		return nil, err
	}
	return t.finishNav(ctx, w)
}

// Reload reloads the tab's document.
func (t *Tab) Reload(ctx context.Context) (*NavResult, error) {
	if err := t.pageOnly("reload"); err != nil {
		return nil, err
	}
	t.op.Lock()
	defer t.op.Unlock()
	w := t.watchNav()
	defer w.cancel()
	if _, err := cdpproto.Call(ctx, t.sess, page.Reload, page.ReloadParams{}); err != nil {
		return nil, err
	}
	return t.finishNav(ctx, w)
}

func (t *Tab) finishNav(ctx context.Context, w *navWatch) (*NavResult, error) {
	loader, restored, err := w.commit(ctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, apitype.Errorf(apitype.Timeout, "the page did not navigate in time").Executed()
		}
		return nil, err
	}
	loaded := true
	if loader != "" && !restored {
		if loaded, err = w.load(ctx, loader); err != nil {
			return nil, err
		}
	}
	return t.navResult(ctx, loaded), nil
}

// URL is the tab's current top-level address.
func (t *Tab) URL() string {
	_, u := t.info()
	return u
}

// Title is the tab's current title.
func (t *Tab) Title() string {
	title, _ := t.info()
	return title
}

func (t *Tab) String() string { return fmt.Sprintf("%s (%s)", t.ID, t.URL()) }

// pageOnly refuses operations that only a page root can do: loupe does not
// navigate a frame's session history on its own (a frame navigates by
// what is clicked in it, or with the page).
func (t *Tab) pageOnly(what string) error {
	if !t.IsFrame() {
		return nil
	}
	e := apitype.Errorf(apitype.SurfaceUnsupported, "surface %s is a frame; loupe cannot %s a frame on its own", t.ID, what)
	e.Hint = "switch to its page (`loupe switch " + t.tab.ID + "`) or click a link inside the frame"
	return e
}
