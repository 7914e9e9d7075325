package engine

import (
	"context"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// NewWindow opens a blank page in a new browser window, for tests of the
// window view.
func (b *Browser) NewWindow(ctx context.Context) (*Surface, error) {
	res, err := cdpproto.Call(ctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: ptr(true)})
	if err != nil {
		return nil, err
	}
	return b.SurfaceForTarget(ctx, string(res.TargetID))
}

// SafeURL is where RecoverCrash reloads a crashed page.
var SafeURL = safeURL

// TryLockForTest reports whether the tab's operation token was free (and
// takes it; ReleaseForTest gives it back).
func (t *Surface) TryLockForTest() bool {
	select {
	case t.op <- struct{}{}:
		return true
	default:
		return false
	}
}

// ReleaseForTest gives back what TryLockForTest took.
func (t *Surface) ReleaseForTest() { <-t.op }
