// Package surface is the caller's view of a browser's surfaces: it lists
// them (every surface, the page roots as windows, the tabs), describes one
// as the design's surface descriptor, brings one to the front (switch,
// switch-window, activate), and opens and closes tabs. The engine core
// tracks the surfaces and knows what each one is; this package reads that
// and asks the browser to create, activate and close page targets.
package surface

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/browser"
	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/partition"
)

// Surface describes one surface. Its JSON is the surface descriptor of the
// design (field names included).
type Surface struct {
	ID             string       `json:"id"`
	Kind           string       `json:"kind"` // engine.KindTab, KindFrame, …
	ParentID       string       `json:"parentId,omitempty"`
	Title          string       `json:"title,omitempty"`
	URL            string       `json:"url,omitempty"`
	Capabilities   Capabilities `json:"capabilities"`
	OriginRelation string       `json:"originRelation,omitempty"`
	// Crashed is set on a page root whose renderer has crashed (its
	// frames are gone, nothing can be done in it until RecoverCrash).
	Crashed bool `json:"crashed,omitempty"`
}

// Capabilities are what loupe can really do on a surface now.
type Capabilities struct {
	Snapshot     bool `json:"snapshot"`
	Interaction  bool `json:"interaction"`
	RendererEval bool `json:"rendererEval"`
}

// List lists every live surface, parent-first: each page root, then the
// frames in it (depth-first); a page root with a parent (a webview guest)
// comes after its host, wherever the host is in the order pages appeared.
// Titles are asked for afresh, as Tabs does, and pages that appeared since
// the last classification are classified.
func List(ctx context.Context, b *engine.Browser) []Surface {
	refreshTitles(ctx, b)
	b.Reclassify(ctx)
	list := []Surface{}
	for _, t := range b.Pages() {
		list = append(list, Describe(t))
		for _, f := range t.FrameSurfaces() {
			list = append(list, Describe(f))
		}
	}
	return parentFirst(list, func(s Surface) (string, string) { return s.ID, s.ParentID })
}

// parentFirst orders a list so that every item comes after its parent: a
// depth-first walk from the items whose parent is not in the list, each
// item's children in the order they were listed, so a list that already
// is such a walk keeps its order. Items in a parent cycle (which no
// browser reports) come last, with what is under them, rather than
// vanish.
func parentFirst[T any](list []T, key func(T) (id, parent string)) []T {
	index := make(map[string]int, len(list))
	for i, x := range list {
		id, _ := key(x)
		index[id] = i
	}
	kids := map[int][]int{}
	var roots []int
	for i, x := range list {
		_, p := key(x)
		if j, ok := index[p]; ok && p != "" && j != i {
			kids[j] = append(kids[j], i)
		} else {
			roots = append(roots, i)
		}
	}
	out := make([]T, 0, len(list))
	done := make([]bool, len(list))
	var walk func(i int)
	walk = func(i int) {
		if done[i] {
			return
		}
		done[i] = true
		out = append(out, list[i])
		for _, k := range kids[i] {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	for i := range list {
		walk(i)
	}
	return out
}

// Describe returns the descriptor of one live surface. It makes no
// protocol call.
func Describe(t *engine.Surface) Surface {
	ok := t.Usable()
	s := Surface{ID: t.ID, Title: t.Title(), URL: t.URL(), Crashed: t.IsCrashed(),
		Capabilities: Capabilities{Snapshot: ok, Interaction: ok, RendererEval: ok}}
	s.Kind, s.ParentID = t.Kind()
	s.OriginRelation = t.OriginRelation()
	return s
}

// Switch makes a live surface the target of every later implicit
// operation and brings its page to the front.
func Switch(ctx context.Context, b *engine.Browser, id string) (*engine.Surface, error) {
	return bringToFront(ctx, b, id, nil)
}

// bringToFront finds a live surface, if check (when given) allows it, and
// brings its page to the front. Which surface a caller works in is the
// caller's (see package sessions).
func bringToFront(ctx context.Context, b *engine.Browser, id string, check func(*engine.Surface) error) (*engine.Surface, error) {
	if id == "" {
		return nil, apitype.Errorf(apitype.BadInput, "missing surface id").Fix("give the id of a live surface ({1} lists them)", apitype.Step{Op: "surfaces"})
	}
	t, err := b.Surface(ctx, id)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(t); err != nil {
			return nil, err
		}
	}
	if err := b.Activate(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// Window is a page root as the window-oriented view lists it.
type Window struct {
	Surface
	// WindowID is the browser window that shows the page (0 when the
	// browser does not say).
	WindowID int64 `json:"windowId,omitempty"`
	// OpenerID is the surface that opened the page (window.open).
	OpenerID string `json:"openerId,omitempty"`
}

// Windows lists the page roots only, parent-first: the window-oriented
// view of the same registry as List. Window ids are asked for
// concurrently.
func Windows(ctx context.Context, b *engine.Browser) []Window {
	refreshTitles(ctx, b)
	b.Reclassify(ctx)
	pages := b.Pages()
	out := make([]Window, 0, len(pages))
	for _, t := range pages {
		out = append(out, Window{Surface: Describe(t), OpenerID: Opener(t)})
	}
	var wg sync.WaitGroup
	for i, t := range pages {
		wg.Go(func() {
			if r, err := cdpproto.Call(ctx, b.BrowserSession(), browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: target.ID(t.TargetID)}); err == nil {
				out[i].WindowID = int64(r.WindowID)
			}
		})
	}
	wg.Wait()
	return parentFirst(out, func(w Window) (string, string) { return w.ID, w.ParentID })
}

// SwitchWindow is Switch restricted to page roots.
func SwitchWindow(ctx context.Context, b *engine.Browser, id string) (*engine.Surface, error) {
	return bringToFront(ctx, b, id, func(t *engine.Surface) error {
		if !t.IsFrame() {
			return nil
		}
		return apitype.Errorf(apitype.SurfaceUnsupported, "surface %s is a frame, not a window", id).
			Fix("select frames with {1}", apitype.Step{Op: "switch", Args: map[string]string{"surface_id": id}})
	})
}

// TabInfo describes a tab for listing.
type TabInfo struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	URL    string `json:"url"`
	Opener string `json:"opener,omitempty"`
	// Crashed is set while the tab's renderer is crashed (see
	// Tab.RecoverCrash).
	Crashed bool `json:"crashed,omitempty"`
	// Partition is where its cookies and storage live (see partition.Persist).
	Partition string `json:"partition"`
	// Navigating: a navigation of the page is under way (requested, not
	// yet committed or stopped).
	Navigating bool `json:"navigating,omitempty"`
}

// Tabs lists the live tabs in the order they appeared. Titles are asked
// for afresh (one call for all tabs): targetInfoChanged events can trail a
// page's title by a while.
func Tabs(ctx context.Context, b *engine.Browser) []TabInfo {
	Sweep(ctx, b) // a temp partition whose last tab a page closed goes now
	refreshTitles(ctx, b)
	pages := b.Pages()
	out := make([]TabInfo, 0, len(pages))
	for _, t := range pages {
		out = append(out, TabInfo{ID: t.ID, Title: t.Title(), URL: t.URL(), Opener: Opener(t), Crashed: t.IsCrashed(),
			Partition: PartitionOf(b, t), Navigating: t.Navigating(t.TargetID)})
	}
	return out
}

// Activate brings a tab to the front.
func Activate(ctx context.Context, b *engine.Browser, id string) (*engine.Surface, error) {
	return bringToFront(ctx, b, id, func(t *engine.Surface) error { return PageOnly(t, "activate as a tab") })
}

// NewTab opens a tab at about:blank in the persist partition and returns
// it (see NewTabIn).
func NewTab(ctx context.Context, b *engine.Browser) (*engine.Surface, error) {
	return NewTabIn(ctx, b, partition.Persist)
}

// CloseTab closes a tab and waits until it is gone. A caller whose current
// tab it was keeps naming it (SURFACE_CLOSED): loupe never picks another
// one silently.
func CloseTab(ctx context.Context, b *engine.Browser, id string) error {
	t, err := b.Surface(ctx, id)
	if err != nil {
		return err
	}
	if err := PageOnly(t, "close"); err != nil {
		return err
	}
	if _, err := cdpproto.Call(ctx, b.BrowserSession(), target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(t.TargetID)}); err != nil {
		return err
	}
	select {
	case <-t.Closed():
		Sweep(ctx, b) // its temp partition goes with its last tab
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
