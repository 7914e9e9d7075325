package handlers

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// usage is a usage error (BAD_INPUT) a handler finds in its input.
func usage(format string, args ...any) *apitype.Error {
	return apitype.Errorf(apitype.BadInput, format, args...)
}

func readHandlers() map[string]Handler {
	read := func(what string) Handler {
		return Tab(func(ctx context.Context, t *engine.Surface, in *ops.TargetIn) (*ops.ValueOut, error) {
			v, _, err := action.Read(ctx, t, in.Target, what, "")
			if err != nil {
				return nil, err
			}
			return &ops.ValueOut{Ref: in.Target, Value: v}, nil
		})
	}
	return map[string]Handler{
		"text": Tab(func(ctx context.Context, t *engine.Surface, in *ops.TextIn) (*ops.ValueOut, error) {
			if in.Target == "" {
				s, err := action.PageText(ctx, t)
				return &ops.ValueOut{Value: s}, err
			}
			v, _, err := action.Read(ctx, t, in.Target, "text", "")
			return &ops.ValueOut{Ref: in.Target, Value: v}, err
		}),
		"html":  read("html"),
		"value": read("value"),
		"attr": Tab(func(ctx context.Context, t *engine.Surface, in *ops.AttrIn) (*ops.ValueOut, error) {
			v, present, err := action.Read(ctx, t, in.Target, "attr", in.Name)
			if err != nil {
				return nil, err
			}
			return &ops.ValueOut{Ref: in.Target, Value: v, Present: &present}, nil
		}),
		"box": Tab(func(ctx context.Context, t *engine.Surface, in *ops.TargetIn) (*ops.BoxOut, error) {
			b, err := action.Box(ctx, t, in.Target)
			if err != nil {
				return nil, err
			}
			return boxOut(b), nil
		}),
		"state": Tab(func(ctx context.Context, t *engine.Surface, in *ops.TargetIn) (*ops.StateOut, error) {
			s, err := action.State(ctx, t, in.Target)
			if err != nil {
				return nil, err
			}
			return stateOut(s), nil
		}),
		"eval": Tab(func(ctx context.Context, t *engine.Surface, in *ops.EvalIn) (*ops.EvalOut, error) {
			v, err := action.Eval(ctx, t, in.JS)
			if err != nil {
				return nil, err
			}
			return evalOut(v), nil
		}),
		"wait": Tab(func(ctx context.Context, t *engine.Surface, in *ops.WaitIn) (*ops.WaitOut, error) {
			ctx, cancel := context.WithTimeout(ctx, in.Wait())
			defer cancel()
			r, err := nav.Wait(ctx, t, nav.WaitOptions{Text: in.Text, Ref: in.Target, URL: in.URL, Load: in.Load,
				TextGone: in.TextGone, For: in.Time.Duration()})
			if err != nil {
				return nil, err
			}
			return waitOut(r), nil
		}),
		"pick": Tab(func(ctx context.Context, t *engine.Surface, in *ops.PickIn) (*ops.PickOut, error) {
			// A snapshot first, so that what is pointed at has a current
			// ref (the dashboard's person has taken none).
			if _, err := capture.Take(ctx, t, capture.SnapshotOptions{}); err != nil {
				return nil, err
			}
			p, err := action.Pick(ctx, t, in.X, in.Y)
			if err != nil {
				return nil, err
			}
			return &ops.PickOut{SurfaceID: t.ID, Ref: p.Ref, Line: p.Line, Locator: p.Locator, FrameID: p.FrameID}, nil
		}),
		"screenshot": Func(func(ctx context.Context, d *Deps, in *ops.ScreenshotIn) (*ops.ScreenshotOut, error) {
			t, err := d.Caller.Tab(ctx)
			if err != nil {
				return nil, err
			}
			var labelled []action.Labelled
			if in.Annotate {
				// The refs are taken afresh, of what the viewport shows
				// (all of the page for --full), so that the labels are
				// current refs.
				s, err := capture.Take(ctx, t, capture.SnapshotOptions{Viewport: !in.Full})
				if err != nil {
					return nil, err
				}
				for _, r := range s.Refs {
					labelled = append(labelled, action.Labelled{Ref: r.Ref, FrameID: r.FrameID, Role: r.Role, Name: r.Name})
				}
			}
			shot, err := action.Screenshot(ctx, t, action.ScreenshotOptions{Ref: in.Target, FullPage: in.Full})
			if err != nil {
				return nil, err
			}
			png := shot.PNG
			var labels []action.Label
			if in.Annotate {
				if png, labels, err = action.Annotate(ctx, t, shot, labelled); err != nil {
					return nil, err
				}
			}
			_, shot.Obs.Epoch = d.Control.Mode(t.PageID())
			out := &ops.ScreenshotOut{Bytes: len(png), Observation: action.Observe(t.Browser(), shot.Obs)}
			out.Width, out.Height = action.PNGSize(png)
			for _, l := range labels {
				out.Labels = append(out.Labels, wire.Label{Ref: l.Ref, Line: l.Line, X: l.X, Y: l.Y, W: l.W, H: l.H})
			}
			if in.Inline {
				out.PNG = png
			}
			if in.Data {
				out.PNG = png
				return out, nil
			}
			name := fmt.Sprintf("screenshot-%s-%s.png", t.ID, time.Now().Format("20060102-150405.000"))
			out.Path, err = d.Files.Save(name, png)
			return out, err
		}),
	}
}

func findHandlers() map[string]Handler {
	return map[string]Handler{
		"query": Tab(func(ctx context.Context, t *engine.Surface, in *ops.QueryIn) (*ops.QueryOut, error) {
			r, err := capture.Query(ctx, t, capture.QueryOptions{Role: in.Role, Name: in.Name, Text: in.Text, Exact: in.Exact,
				Within: in.Within, FrameOf: in.FrameOf, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			return queryOut(r), nil
		}),
		"downloads": Func(func(ctx context.Context, d *Deps, in *ops.DownloadsIn) (*ops.DownloadsOut, error) {
			if _, err := d.Caller.Browser(ctx); err != nil {
				return nil, err
			}
			dl, err := d.Browsers.Downloads()
			if err != nil {
				return nil, err
			}
			// A confined caller sees, and waits for, the downloads of its
			// own tabs only; each finished one it is given is linked into
			// its own files, where its front end reads it back.
			var keep func(download.Download) bool
			if d.Own != nil {
				keep = func(r download.Download) bool { return r.SurfaceID != "" && d.Own(ctx, r.SurfaceID) }
			}
			out := &ops.DownloadsOut{}
			if in.Wait && in.Timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, in.Timeout.Duration())
				defer cancel()
			}
			if in.Wait {
				r, err := dl.WaitFor(ctx, keep)
				if err != nil {
					return nil, err
				}
				w := downloadOf(*r)
				if d.Own != nil && w.Path != "" {
					if w.Path, err = d.Files.Adopt(w.Path); err != nil {
						return nil, apitype.Wrap(apitype.FileError, err, "keeping the download in your files: %v", err)
					}
				}
				out.Finished = &w
			}
			list := dl.List()
			if keep != nil {
				list = slices.DeleteFunc(list, func(r download.Download) bool { return !keep(r) })
			}
			out.Downloads = mapSlice(list, downloadOf)
			return out, nil
		}),
	}
}
