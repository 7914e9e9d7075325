package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/input"
)

// Pointer by observation. An agent that sees a canvas, a map or a game
// has no refs to act on, only pixels: it acts at a screenshot's
// coordinates, and only while what the screenshot showed is still where
// it was. Every screenshot is an Observation — the tab, its document, the
// take-over epoch, where the image sits on the page and at what scale,
// and the viewport, scroll position and zoom it was taken at — kept
// under a token. A pointer action names the token; once the tab has
// navigated, scrolled, resized, zoomed or changed hands since, the
// coordinates no longer name what was seen there, and the action is
// STALE_OBSERVATION, not executed.

// Observation is what a screenshot saw.
type Observation struct {
	Surface  string
	Document string // the document token (capture.DocumentToken)
	Epoch    int64  // the tab's take-over epoch; the caller sets it
	// ClipX and ClipY are where the image's top-left corner is on the
	// page, in CSS pixels; Scale is the image's pixels per CSS pixel.
	ClipX, ClipY, Scale float64
	// The visual viewport when it was taken: its size and scroll position
	// in CSS pixels, and the zoom (pinch) scale.
	ViewW, ViewH, ScrollX, ScrollY, Zoom float64
}

// observeMetrics fills in the viewport part of an observation.
func observeMetrics(ctx context.Context, t *engine.Surface, o *Observation) (*page.GetLayoutMetricsResult, error) {
	m, err := cdpproto.Call(ctx, t.Session(), page.GetLayoutMetrics, cdpproto.Empty{})
	if err != nil {
		return nil, err
	}
	if vv := m.CSSVisualViewport; vv != nil {
		o.ViewW, o.ViewH, o.ScrollX, o.ScrollY, o.Zoom = vv.ClientWidth, vv.ClientHeight, vv.PageX, vv.PageY, vv.Scale
	}
	return &m, nil
}

// maxObservations bounds the observations a browser keeps: the newest
// stay, and a token older than them is stale.
const maxObservations = 256

// observations are a browser's observations by token.
type observations struct {
	mu    sync.Mutex
	by    map[string]Observation
	order []string
}

func observationsOf(b *engine.Browser) *observations {
	return b.Kept("action.observations", func() any { return &observations{by: map[string]Observation{}} }).(*observations)
}

// Observe keeps an observation and returns its token.
func Observe(b *engine.Browser, o Observation) string {
	var r [12]byte
	_, _ = rand.Read(r[:])
	tok := "obs-" + hex.EncodeToString(r[:])
	k := observationsOf(b)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.by[tok] = o
	k.order = append(k.order, tok)
	if len(k.order) > maxObservations {
		delete(k.by, k.order[0])
		k.order = k.order[1:]
	}
	return tok
}

// Observed returns the observation a token names.
func Observed(b *engine.Browser, tok string) (Observation, bool) {
	k := observationsOf(b)
	k.mu.Lock()
	defer k.mu.Unlock()
	o, ok := k.by[tok]
	return o, ok
}

// PointerOptions are a pointer action at an observation's coordinates.
type PointerOptions struct {
	Action string  // click, dblclick, move, down, up, wheel
	X, Y   float64 // image pixels of the observation's screenshot
	DX, DY float64 // wheel deltas, CSS pixels
}

// PointerActions are the actions Pointer takes.
var PointerActions = []string{"click", "dblclick", "move", "down", "up", "wheel"}

// Pointer acts at a screenshot's coordinates in tab t while the
// observation o is current: same document, viewport, scroll position and
// zoom (the caller has checked the epoch). A point outside the viewport
// is NOT_ACTIONABLE: the page would have to scroll, which would make the
// observation stale. Both refusals come before any input is sent.
func Pointer(ctx context.Context, t *engine.Surface, o Observation, p PointerOptions) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		if doc := capture.DocumentToken(t); doc != o.Document {
			return nil, stale("the tab shows another document since the screenshot")
		}
		var now Observation
		if _, err := observeMetrics(ctx, t, &now); err != nil {
			return nil, err
		}
		switch {
		case !near(now.ScrollX, o.ScrollX) || !near(now.ScrollY, o.ScrollY):
			return nil, stale("the page scrolled since the screenshot")
		case !near(now.ViewW, o.ViewW) || !near(now.ViewH, o.ViewH):
			return nil, stale("the viewport was resized since the screenshot")
		case !near(now.Zoom, o.Zoom):
			return nil, stale("the page was zoomed since the screenshot")
		}
		scale := o.Scale
		if scale <= 0 {
			scale = 1
		}
		x, y := o.ClipX+p.X/scale-o.ScrollX, o.ClipY+p.Y/scale-o.ScrollY
		if x < 0 || y < 0 || x >= o.ViewW || y >= o.ViewH {
			return nil, apitype.Errorf(apitype.NotActionable,
				"(%g, %g) of the screenshot is outside the viewport: act on a screenshot of the viewport, or scroll and take a new one", p.X, p.Y)
		}
		s := t.Session()
		var err error
		switch p.Action {
		case "click", "dblclick":
			n := 1
			if p.Action == "dblclick" {
				n = 2
			}
			err = input.Click(ctx, s, x, y, "left", n, 0)
		case "move":
			err = input.Move(ctx, s, x, y, 0)
		case "down":
			err = input.LeftDown(ctx, s, x, y)
		case "up":
			err = input.LeftUp(ctx, s, x, y)
		case "wheel":
			err = input.Wheel(ctx, s, x, y, p.DX, p.DY)
		default:
			return nil, apitype.Errorf(apitype.BadInput, "pointer action %q: one of %v", p.Action, PointerActions)
		}
		if err != nil {
			return nil, executedErr(err)
		}
		t.NoteInput(time.Now())
		if w, err := t.World(ctx, t.Root()); err == nil {
			afterInput(ctx, w)
		}
		r := result(t, nil)
		r.X, r.Y = x, y
		r.Note = fmt.Sprintf("%s at (%g, %g) of the screenshot", p.Action, p.X, p.Y)
		return r, nil
	})
}

// near: two layout numbers are the same up to rounding.
func near(a, b float64) bool { return math.Abs(a-b) < 0.5 }

func stale(why string) error {
	return apitype.Errorf(apitype.StaleObservation, "%s: its coordinates no longer name what it showed", why)
}
