package action

import (
	"context"
	"fmt"
	"math"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
)

// ScreenshotOptions choose what to capture: the viewport (default), the
// whole page, or one element.
type ScreenshotOptions struct {
	Ref      string
	FullPage bool
}

// Screenshot captures a PNG, checked whole (checkPNG) before it is
// returned. An element is scrolled into view first; the page is otherwise
// left as it is.
func Screenshot(ctx context.Context, t *engine.Surface, o ScreenshotOptions) ([]byte, error) {
	return engine.Exclusively(ctx, t, func() ([]byte, error) {
		p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
		switch {
		case o.Ref != "":
			tg, err := resolve(ctx, t, o.Ref)
			if err != nil {
				return nil, err
			}
			r, err := prepare(ctx, t, tg, false, false)
			if err != nil {
				return nil, err
			}
			if r.X, r.Y, err = toTop(ctx, t, tg.Ref, tg.Frame, r.X, r.Y, false); err != nil {
				return nil, err
			}
			m, err := cdpproto.Call(ctx, t.Session(), page.GetLayoutMetrics, cdpproto.Empty{})
			if err != nil {
				return nil, err
			}
			vv := m.CSSVisualViewport
			p.Clip = &page.Viewport{
				X: r.X - r.W/2 + vv.PageX, Y: r.Y - r.H/2 + vv.PageY,
				Width: math.Max(r.W, 1), Height: math.Max(r.H, 1), Scale: 1,
			}
			p.CaptureBeyondViewport = ptr(true)
		case o.FullPage:
			m, err := cdpproto.Call(ctx, t.Session(), page.GetLayoutMetrics, cdpproto.Empty{})
			if err != nil {
				return nil, err
			}
			cs := m.CSSContentSize
			if cs == nil || cs.Width == 0 || cs.Height == 0 {
				return nil, apitype.Errorf(apitype.NotActionable, "the page has no content to capture")
			}
			p.Clip = &page.Viewport{Width: cs.Width, Height: cs.Height, Scale: 1}
			p.CaptureBeyondViewport = ptr(true)
		}
		res, err := cdpproto.Call(ctx, t.Session(), page.CaptureScreenshot, p)
		if err != nil {
			return nil, err
		}
		if err := checkPNG(res.Data); err != nil {
			return nil, fmt.Errorf("the browser's screenshot: %w", err)
		}
		return res.Data, nil
	})
}
