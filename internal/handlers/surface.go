package handlers

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
)

func surfaceHandlers() map[string]Handler {
	switchTo := func(find func(context.Context, *engine.Browser, string) (*engine.Surface, error)) Handler {
		return OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, in *ops.SurfaceIDIn) (*ops.SurfaceOut, error) {
			t, err := find(ctx, b, in.ID)
			if err != nil {
				return nil, err
			}
			c.SetCurrent(t.ID)
			d := ops.SurfaceOut(surfaceOf(surface.Describe(t)))
			d.Active = true
			return &d, nil
		})
	}
	return map[string]Handler{
		"status": Func(func(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.StatusOut, error) {
			b, err := d.Caller.Browser(ctx)
			if err != nil {
				return nil, err
			}
			s := statusOut(status.Of(b))
			if dl, err := d.Browsers.Downloads(); err == nil {
				s.Downloads = dl.Count()
			}
			s.Active, s.URL = d.Caller.Current(), ""
			if t, err := b.Surface(ctx, s.Active); s.Active != "" && err == nil {
				s.URL = t.URL()
			}
			return s, nil
		}),
		"surfaces": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, _ *ops.NoIn) (*ops.SurfacesOut, error) {
			list := mapSlice(surface.List(ctx, b), surfaceOf)
			cur := c.Current()
			for i := range list {
				list[i].Active = list[i].ID == cur
			}
			return &ops.SurfacesOut{ActiveSurfaceID: cur, Surfaces: list}, nil
		}),
		"switch": switchTo(surface.Switch),
		"windows": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, _ *ops.NoIn) (*ops.WindowsOut, error) {
			cur := c.Current()
			ws := mapSlice(surface.Windows(ctx, b), windowOf)
			for i := range ws {
				ws[i].Active = ws[i].ID == cur
			}
			return &ops.WindowsOut{ActiveSurfaceID: cur, Windows: ws}, nil
		}),
		"switch-window": switchTo(surface.SwitchWindow),
	}
}

func eventHandlers() map[string]Handler {
	return map[string]Handler{
		"console": Browser(func(ctx context.Context, b *engine.Browser, in *ops.LogIn) (*ops.ConsoleOut, error) {
			return &ops.ConsoleOut{Records: mapSlice(b.Events().Console(in.Surface, in.Clear), consoleRecord)}, nil
		}),
		"network": Browser(func(ctx context.Context, b *engine.Browser, in *ops.LogIn) (*ops.NetworkOut, error) {
			return &ops.NetworkOut{Records: mapSlice(b.Events().Network(in.Surface, in.Clear), networkRecord)}, nil
		}),
		"dialogs": Browser(func(ctx context.Context, b *engine.Browser, in *ops.DialogsIn) (*ops.DialogsOut, error) {
			switch {
			case in.Accept:
				b.Events().SetDialogPolicy(eventlog.DialogPolicy{Mode: "accept", PromptText: in.PromptText})
			case in.Dismiss:
				b.Events().SetDialogPolicy(eventlog.DialogPolicy{Mode: "dismiss"})
			case in.Auto:
				b.Events().SetDialogPolicy(eventlog.DialogPolicy{Mode: "auto"})
			}
			return &ops.DialogsOut{Policy: dialogPolicy(b.Events().DialogPolicy()), Records: mapSlice(b.Events().Dialogs(), dialogRecord)}, nil
		}),
	}
}
