// Package nav moves a tab between documents and waits for what a page
// does: open a URL, go back or forward, reload, and wait for text, an
// element, a URL or the load event. Waits follow page events (DOM
// mutations, navigation and lifecycle events), never a timer. It sits on
// the engine core and resolves wait targets through package capture.
package nav

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// Result is the outcome of a navigation.
type Result struct {
	Surface string `json:"surface"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	// Loaded is false when the document committed but its load event had
	// not fired when the deadline came (a slow subresource, say).
	Loaded bool `json:"loaded"`
	// Status is the HTTP status of the document's response (0 when it
	// came from no HTTP response: data:, about:blank, a file, the cache
	// of a back-forward navigation).
	Status int64 `json:"status,omitempty"`
}

// sameDocWait bounds the wait for a same-document navigation's event.
const sameDocWait = 2 * time.Second

// navWatch follows the main frame's navigation events from before a
// navigation starts, so none is missed.
type navWatch struct {
	t       *engine.Surface
	events  <-chan cdp.Event
	crashed <-chan struct{} // the page's renderer crashed: nothing will come
	cancel  func()
	// status is the HTTP status of the main frame's document responses
	// seen so far, by loader id.
	status map[string]int64
}

// note keeps the status of a main-frame document response.
func (n *navWatch) note(ev cdp.Event) {
	var e struct {
		LoaderID string `json:"loaderId"`
		FrameID  string `json:"frameId"`
		Type     string `json:"type"`
		Response struct {
			URL    string `json:"url"`
			Status int64  `json:"status"`
		} `json:"response"`
	}
	// Chromium reports a response for data: documents too (200): only
	// an HTTP response has a status worth saying.
	if jsonv2.Unmarshal(ev.Params, &e) == nil && e.Type == "Document" && e.FrameID == n.t.Root() &&
		(strings.HasPrefix(e.Response.URL, "http://") || strings.HasPrefix(e.Response.URL, "https://")) {
		n.status[e.LoaderID] = e.Response.Status
	}
}

func watchNav(t *engine.Surface) *navWatch {
	s := t.Session()
	if f, ok := t.Frame(t.Root()); ok {
		s = f.Session // a frame surface's events come from the session hosting it
	}
	ev, cancel := s.Listen("Page.frameNavigated", "Page.navigatedWithinDocument", "Page.lifecycleEvent", "Network.responseReceived")
	return &navWatch{t: t, events: ev, crashed: t.Crashed(), cancel: cancel, status: map[string]int64{}}
}

// commit waits for the main frame to commit a new document (returning its
// loader id) or to navigate within its document (returning "").
func (n *navWatch) commit(ctx context.Context) (loader string, restored bool, err error) {
	main := n.t.Root()
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return "", false, engine.ErrTabClosed
			}
			switch ev.Method {
			case "Network.responseReceived":
				n.note(ev)
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
		case <-n.crashed:
			return "", false, fmt.Errorf("waiting for a navigation: %w", engine.ErrTabCrashed)
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
	}
}

// load waits for the load event of the given document of the main frame.
// It reports false (not an error) when ctx ends first.
func (n *navWatch) load(ctx context.Context, loader string) (bool, error) {
	main := n.t.Root()
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return false, engine.ErrTabClosed
			}
			if ev.Method == "Network.responseReceived" {
				n.note(ev)
				continue
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
		case <-n.crashed:
			return false, fmt.Errorf("waiting for the page to load: %w", engine.ErrTabCrashed)
		case <-ctx.Done():
			return false, nil
		}
	}
}

// floodHop is where a navigation away from a page held in a dialog flood
// goes first (see Navigate).
const floodHop = "data:text/html,"

// Navigate loads url in the tab and waits for its load event (bounded by
// ctx). A URL the browser cannot load is NAVIGATION_FAILED with the
// network error.
func Navigate(ctx context.Context, t *engine.Surface, url string) (*Result, error) {
	if err := surface.PageOnly(t, "navigate"); err != nil {
		return nil, err
	}
	if t.Blocked() && url != floodHop {
		// A renderer stopped in a held dialog of a flood keeps a
		// navigation that would commit in its process from committing:
		// straight to another page of the same site, Page.navigate never
		// replied; from a data: page even about:blank never committed
		// (the tab stayed put until the deadline). An empty data:
		// document commits in a process of its own: measured from http
		// and data: pages held in a flood, it committed in 70-95 ms every
		// time, and the real address loads from there.
		if _, err := Navigate(ctx, t, floodHop); err != nil {
			return nil, err
		}
	}
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		w := watchNav(t)
		defer w.cancel()
		res, err := cdpproto.Call(ctx, t.Session(), page.Navigate, page.NavigateParams{URL: url})
		if err != nil {
			return nil, err
		}
		if res.IsDownload {
			// A file the browser saves rather than a page it shows (an
			// attachment; a PDF in the headless shell, which has no
			// viewer): the tab stays on its page.
			return nil, apitype.Errorf(apitype.NavigationFailed, "%s is a download, not a page: the browser saves it to the session's files", url).
				Fix("list it, or wait for it to finish ({1})", apitype.Step{Op: "downloads"}).Executed()
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
		r := navResult(ctx, t, loaded)
		r.Status = w.status[string(res.LoaderID)]
		return r, nil
	})
}

// navResult reports where the tab is now: its committed URL, and its
// title asked for afresh (targetInfoChanged events may trail a load
// event).
func navResult(ctx context.Context, t *engine.Surface, loaded bool) *Result {
	title, url := t.Title(), t.URL()
	if ti, err := cdpproto.Call(ctx, t.Browser().BrowserSession(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(t.TargetID)}); err == nil && ti.TargetInfo != nil {
		title = ti.TargetInfo.Title
		t.SetTitle(title)
	}
	return &Result{Surface: t.ID, URL: url, Title: title, Loaded: loaded}
}

// History moves back (delta -1) or forward (+1) in the tab's history.
func History(ctx context.Context, t *engine.Surface, delta int) (*Result, error) {
	if err := surface.PageOnly(t, "go back or forward"); err != nil {
		return nil, err
	}
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		h, err := cdpproto.Call(ctx, t.Session(), page.GetNavigationHistory, cdpproto.Empty{})
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
		w := watchNav(t)
		defer w.cancel()
		if _, err := cdpproto.Call(ctx, t.Session(), page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			return nil, err
		}
		return finishNav(ctx, t, w)
	})
}

// Reload reloads the tab's document.
func Reload(ctx context.Context, t *engine.Surface) (*Result, error) {
	if err := surface.PageOnly(t, "reload"); err != nil {
		return nil, err
	}
	if t.Blocked() {
		// Page.reload does nothing while the renderer is stopped in a
		// held dialog of a flood (the reply comes, no navigation does);
		// a navigation to the same address does what a reload would.
		return Navigate(ctx, t, t.URL())
	}
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		w := watchNav(t)
		defer w.cancel()
		if _, err := cdpproto.Call(ctx, t.Session(), page.Reload, page.ReloadParams{}); err != nil {
			return nil, err
		}
		return finishNav(ctx, t, w)
	})
}

func finishNav(ctx context.Context, t *engine.Surface, w *navWatch) (*Result, error) {
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
	r := navResult(ctx, t, loaded)
	r.Status = w.status[loader]
	return r, nil
}
