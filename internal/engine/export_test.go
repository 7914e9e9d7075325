package engine

import (
	"context"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// NewWindow opens a blank page in a new browser window, for tests of the
// window view.
func (b *Browser) NewWindow(ctx context.Context) (*Tab, error) {
	res, err := cdpproto.Call(ctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: ptr(true)})
	if err != nil {
		return nil, err
	}
	return b.TabForTarget(ctx, string(res.TargetID))
}

// SafeURL is where RecoverCrash reloads a crashed page.
var SafeURL = safeURL

// TryLockForTest reports whether the tab's lock was free (and takes it).
func (t *Tab) TryLockForTest() bool { return t.op.TryLock() }
