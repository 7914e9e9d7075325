package action

import (
	"context"
	"fmt"
	"math"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

// ScreenshotOptions choose what to capture: the viewport (default), the
// whole page, or one element.
type ScreenshotOptions struct {
	Ref      string
	FullPage bool
}

// Shot is a screenshot: the PNG and what it observed (see Observation).
type Shot struct {
	PNG []byte
	Obs Observation
}

// Screenshot captures a PNG, checked whole (checkPNG) before it is
// returned, with the observation that ties its pixels to the page: where
// the image sits on the page, its scale, and the viewport, scroll and
// zoom it was taken at. An element is scrolled into view first (and a
// covered page brought to the front, as every capture is: engine's
// front.go); the page is otherwise left as it is.
func Screenshot(ctx context.Context, t *engine.Surface, o ScreenshotOptions) (*Shot, error) {
	return engine.Exclusively(ctx, t, func() (*Shot, error) {
		p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
		var cssWidth float64 // of the region the image shows
		obs := Observation{Surface: t.ID}
		if o.Ref != "" {
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
			if _, err := observeMetrics(ctx, t, &obs); err != nil {
				return nil, err
			}
			p.Clip = &page.Viewport{
				X: r.X - r.W/2 + obs.ScrollX, Y: r.Y - r.H/2 + obs.ScrollY,
				Width: math.Max(r.W, 1), Height: math.Max(r.H, 1), Scale: 1,
			}
			p.CaptureBeyondViewport = ptr(true)
			obs.ClipX, obs.ClipY, cssWidth = p.Clip.X, p.Clip.Y, p.Clip.Width
		} else {
			m, err := observeMetrics(ctx, t, &obs)
			if err != nil {
				return nil, err
			}
			obs.ClipX, obs.ClipY, cssWidth = obs.ScrollX, obs.ScrollY, obs.ViewW
			if o.FullPage {
				cs := m.CSSContentSize
				if cs == nil || cs.Width == 0 || cs.Height == 0 {
					return nil, apitype.Errorf(apitype.NotActionable, "the page has no content to capture")
				}
				p.Clip = &page.Viewport{Width: cs.Width, Height: cs.Height, Scale: 1}
				p.CaptureBeyondViewport = ptr(true)
				obs.ClipX, obs.ClipY, cssWidth = 0, 0, cs.Width
			}
		}
		res, err := cdpproto.Call(ctx, t.Session(), page.CaptureScreenshot, p)
		if err != nil {
			return nil, err
		}
		if err := checkPNG(res.Data); err != nil {
			return nil, fmt.Errorf("the browser's screenshot: %w", err)
		}
		obs.Document = capture.DocumentToken(t)
		obs.Scale = 1
		if w, _ := PNGSize(res.Data); w > 0 && cssWidth > 0 {
			obs.Scale = float64(w) / cssWidth
		}
		return &Shot{PNG: res.Data, Obs: obs}, nil
	})
}
