package surface

import (
	"context"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
)

// refreshTitles asks the browser for every page's title (one call for
// all): targetInfoChanged events can trail a page's title by a while.
func refreshTitles(ctx context.Context, b *engine.Browser) {
	list, err := cdpproto.Call(ctx, b.BrowserSession(), target.GetTargets, target.GetTargetsParams{Filter: target.Filter{{Type: "page"}}})
	if err != nil {
		return
	}
	byTarget := map[string]*engine.Surface{}
	for _, t := range b.Pages() {
		byTarget[t.TargetID] = t
	}
	for _, ti := range list.TargetInfos {
		if t := byTarget[string(ti.TargetID)]; t != nil {
			t.SetTitle(ti.Title)
		}
	}
}

// Opener is the surface id of the tab that opened t's page (window.open),
// or "" when it was not opened by a page or its opener has gone.
func Opener(t *engine.Surface) string {
	opener := t.OpenerTarget()
	if opener == "" {
		return ""
	}
	for _, p := range t.Browser().Pages() {
		if p.TargetID == opener {
			return p.ID
		}
	}
	return ""
}

// PageOnly refuses operations that only a page root can do: loupe does not
// navigate a frame's session history on its own (a frame navigates by
// what is clicked in it, or with the page).
func PageOnly(t *engine.Surface, what string) error {
	if !t.IsFrame() {
		return nil
	}
	return apitype.Errorf(apitype.SurfaceUnsupported, "surface %s is a frame; a frame cannot %s on its own", t.ID, what).
		Fix("switch to its page ({1}) or click a link inside the frame", apitype.Step{Op: "switch", Args: map[string]string{"surface_id": t.PageID()}})
}
