package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/input"
)

// dragSteps is how many mouse moves carry a drag from its source to its
// target: pages that follow the pointer (sliders, sortable lists) see a
// path, not a jump.
const dragSteps = 8

// dragDwell is how many animation frames the pointer rests at the drop
// point before the release (about 65 ms at 60 frames a second).
const dragDwell = 4

// Drag presses the mouse on one element, moves it to another and releases
// it there, with trusted input. Both work: pointer-driven drags (the page
// follows mousemove) and HTML5 drag and drop (draggable elements). For the
// latter the browser is asked to hand the drag to loupe
// (Input.setInterceptDrags) once it starts, and loupe delivers dragenter,
// dragover and drop at the target itself: a headless browser has no
// platform drag loop to do it. The target is scrolled into view before the
// press, and its point is found again after it (the press may have moved it).
func Drag(ctx context.Context, t *engine.Surface, from, to string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		src, err := resolve(ctx, t, from)
		if err != nil {
			return nil, err
		}
		dst, err := resolve(ctx, t, to)
		if err != nil {
			return nil, err
		}
		// The target is brought into view first, as a person scrolls to see
		// where an item goes before picking it up: a page that follows the
		// pointer (a sortable list) must not scroll under a held button. The
		// source comes next (scrolled only if that hid it).
		if _, _, err := point(ctx, t, dst, false, false); err != nil {
			return nil, err
		}
		x0, y0, err := point(ctx, t, src, true, true)
		if err != nil {
			return nil, err
		}
		events, cancel := t.Session().Listen("Input.dragIntercepted")
		defer cancel()
		// A browser without drag interception still gets the pointer drag.
		_ = t.Session().Call(ctx, "Input.setInterceptDrags", map[string]bool{"enabled": true}, nil)
		defer func() {
			// Always hand drags back to the browser, also on failure.
			c, done := context.WithTimeout(context.WithoutCancel(ctx), actionCleanup)
			defer done()
			_ = t.Session().Call(c, "Input.setInterceptDrags", map[string]bool{"enabled": false}, nil)
		}()
		if err := input.Move(ctx, t.Session(), x0, y0, 0); err != nil {
			return nil, err
		}
		if err := input.LeftDown(ctx, t.Session(), x0, y0); err != nil {
			return nil, executedErr(err)
		}
		// A first small move starts a drag (past the platform's threshold).
		if err := input.DragMove(ctx, t.Session(), x0+6, y0+6); err != nil {
			return nil, releaseAfter(ctx, t, x0, y0, err)
		}
		x1, y1, err := point(ctx, t, dst, false, false)
		if err != nil {
			return nil, releaseAfter(ctx, t, x0, y0, err)
		}
		// Whether the browser started an HTML5 drag is known once the page
		// has handled the move: two animation frames in the source's world
		// bound that (as pages see dragstart within the move's task).
		if err := src.World.Eval(ctx, "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", nil); err != nil {
			return nil, releaseAfter(ctx, t, x0, y0, err)
		}
		var data jsonv2.Value
		select {
		case ev := <-events:
			var e struct {
				Data jsonv2.Value `json:"data"`
			}
			if jsonv2.Unmarshal(ev.Params, &e) == nil {
				data = e.Data
			}
		default:
		}
		if data != nil {
			if err := dropHTML5(ctx, t, data, x1, y1); err != nil {
				return nil, releaseAfter(ctx, t, x1, y1, err)
			}
		} else {
			// One move per animation frame, as a hand moves, and a few frames'
			// dwell at the drop point before the release: pages that follow
			// the pointer (a sortable list in its pointer mode) act on the
			// positions they have drawn, some on a timer of their own.
			frame := func() error {
				return src.World.Eval(ctx, "new Promise(r => requestAnimationFrame(() => r(true)))", nil)
			}
			for i := 1; i <= dragSteps; i++ {
				f := float64(i) / dragSteps
				if err := input.DragMove(ctx, t.Session(), x0+6+(x1-x0-6)*f, y0+6+(y1-y0-6)*f); err != nil {
					return nil, releaseAfter(ctx, t, x0, y0, err)
				}
				if err := frame(); err != nil {
					return nil, releaseAfter(ctx, t, x1, y1, err)
				}
			}
			for range dragDwell {
				if err := frame(); err != nil {
					return nil, releaseAfter(ctx, t, x1, y1, err)
				}
			}
		}
		if err := input.LeftUp(ctx, t.Session(), x1, y1); err != nil {
			return nil, executedErr(err)
		}
		r := result(t, src)
		r.X, r.Y = x1, y1
		r.Note = "dragged " + src.Ref + " to " + dst.Ref
		if data != nil {
			r.Note += " (HTML5 drag and drop)"
		}
		return r, nil
	})
}

// actionCleanup bounds clean-up calls made after an action has failed.
const actionCleanup = 2 * time.Second

// dropHTML5 delivers an intercepted drag at (x, y): enter, over, drop.
func dropHTML5(ctx context.Context, t *engine.Surface, data jsonv2.Value, x, y float64) error {
	for _, typ := range []string{"dragEnter", "dragOver", "drop"} {
		params := map[string]any{"type": typ, "x": x, "y": y, "data": data}
		if err := t.Session().Call(ctx, "Input.dispatchDragEvent", params, nil); err != nil {
			return fmt.Errorf("%s: %w", typ, err)
		}
	}
	return nil
}

// releaseAfter releases the mouse after a drag failed midway, so the page
// is not left with a button held down, and reports the failure as one
// after input was sent.
func releaseAfter(ctx context.Context, t *engine.Surface, x, y float64, cause error) error {
	c, done := context.WithTimeout(context.WithoutCancel(ctx), actionCleanup)
	defer done()
	_ = input.LeftUp(c, t.Session(), x, y)
	var ae *apitype.Error
	if errors.As(cause, &ae) {
		return ae.Executed()
	}
	if errors.Is(cause, cdp.ErrSessionGone) || errors.Is(cause, engine.ErrDocumentGone) {
		return executedErr(fmt.Errorf("the page went away during the drag: %w", cause))
	}
	return executedErr(cause)
}
