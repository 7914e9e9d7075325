package handlers

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
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
			s.Browser, s.Grid = d.Browsers.Place()
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
		"diagnostics": Tab(diagnostics),
		"console": Browser(func(ctx context.Context, b *engine.Browser, in *ops.LogIn) (*ops.ConsoleOut, error) {
			return &ops.ConsoleOut{Records: mapSlice(b.Events().Console(in.Surface, in.Clear), consoleRecord)}, nil
		}),
		"network": Func(networkLog),
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

// Bounds of a diagnostics report: the newest of each list, and the
// duration past which a request is slow.
const (
	maxDiagnosed = 20
	slowRequest  = 1000 // ms
)

// diagnostics reports what went wrong or was slow in a tab: its console
// errors, warnings and uncaught exceptions, its failed requests (network
// errors and HTTP errors) and slow ones, and its document's timing and
// long tasks.
func diagnostics(ctx context.Context, t *engine.Surface, _ *ops.NoIn) (*ops.DiagnosticsOut, error) {
	out := &ops.DiagnosticsOut{SurfaceID: t.ID, URL: t.URL(), SlowMS: slowRequest}
	log := t.Browser().Events()
	for _, r := range log.Console(t.ID, false) {
		switch r.Level {
		case "error", "warning", "exception":
			out.ProblemCount++
			out.Problems = append(out.Problems, consoleRecord(r))
		}
	}
	for _, r := range log.Network(t.ID, false) {
		if r.State == "failed" || r.Status >= 400 {
			out.FailedCount++
			out.Failed = append(out.Failed, networkRecord(r))
		}
		if r.DurationMS > slowRequest {
			out.SlowCount++
			out.Slow = append(out.Slow, networkRecord(r))
		}
	}
	out.Problems = newest(out.Problems, maxDiagnosed)
	out.Failed = newest(out.Failed, maxDiagnosed)
	out.Slow = newest(out.Slow, maxDiagnosed)
	tm, err := action.PageTimings(ctx, t)
	if err != nil {
		return nil, err
	}
	if n := tm.Timing; n != nil {
		out.Timing = &wire.NavTiming{TTFB: n.TTFB, DOMContentLoaded: n.DCL, Load: n.Load, TransferBytes: n.Transfer}
	}
	out.LongTasks = wire.LongTasks{Count: tm.Count, TotalMS: tm.Total, LongestMS: tm.Longest}
	return out, nil
}

// newest keeps the last n of a list.
func newest[T any](l []T, n int) []T {
	if len(l) > n {
		return l[len(l)-n:]
	}
	return l
}
