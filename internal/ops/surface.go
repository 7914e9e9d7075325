package ops

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// SurfaceIDIn names a surface.
type SurfaceIDIn struct {
	ID string `json:"surface_id" arg:"SURFACE_ID" help:"surface id, as listed by surfaces (s1, s2, …)"`
}

// Validate checks the id is given.
func (in *SurfaceIDIn) Validate() error {
	if in.ID == "" {
		return usage("missing %s (a surface id from surfaces)", fld("surface_id"))
	}
	return nil
}

// SwitchTo is the surface a switch makes current.
func (in *SurfaceIDIn) SwitchTo() string { return in.ID }

func surfaceOps() []*Op {
	browser := func(ctx context.Context, env Env) (*engine.Browser, error) { return env.Browser(ctx) }
	return []*Op{
		define("status", "print your current surface, its URL, the page roots and the dialog and download counts", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*StatusOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				s := statusOut(status.Of(b))
				if dl, err := env.Downloads(); err == nil {
					s.Downloads = dl.Count()
				}
				s.Active, s.URL = env.Current(), ""
				if t, err := b.Surface(ctx, s.Active); s.Active != "" && err == nil {
					s.URL = t.URL()
				}
				return s, nil
			}).sessionWide().mcp(Tool{Name: "browser_status", Desc: "Your current surface, its URL, the page roots and the dialog and download counts."}),
		define("surfaces", "list every surface: tabs, windows, webviews and frames, parent-first", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*SurfacesOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				all := surface.List(ctx, b)
				list := mapSlice(all, surfaceOf)
				cur := env.Current()
				for i := range list {
					list[i].Active = list[i].ID == cur
				}
				return &SurfacesOut{ActiveSurfaceID: cur, Surfaces: list}, nil
			}).sessionWide().mcp(Tool{Name: "browser_surfaces", Desc: "List every surface (tabs, popups, frames, Electron windows and views), parent-first, with your current one."}),
		define("switch", "make a surface your current one (the target of your later operations)", Write, actTimeout,
			func(ctx context.Context, env Env, in *SurfaceIDIn) (*SurfaceOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				t, err := surface.Switch(ctx, b, in.ID)
				if err != nil {
					return nil, err
				}
				env.SetCurrent(t.ID)
				d := SurfaceOut(surfaceOf(surface.Describe(t)))
				d.Active = true
				return &d, nil
			}).sessionWide().as(ActTarget).mcp(Tool{Name: "browser_switch_surface", Desc: "Make a surface (a tab or a frame) the target of your later calls."}),
		define("windows", "list the page roots (tabs, windows, views, webviews) with their window ids", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*WindowsOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				cur := env.Current()
				ws := mapSlice(surface.Windows(ctx, b), windowOf)
				for i := range ws {
					ws[i].Active = ws[i].ID == cur
				}
				return &WindowsOut{ActiveSurfaceID: cur, Windows: ws}, nil
			}).sessionWide().mcp(Tool{Name: "browser_windows", Desc: "List the page roots (tabs, windows, views, webviews) with their window ids."}),
		define("switch-window", "make a page root (not a frame) your current surface", Write, actTimeout,
			func(ctx context.Context, env Env, in *SurfaceIDIn) (*SurfaceOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				t, err := surface.SwitchWindow(ctx, b, in.ID)
				if err != nil {
					return nil, err
				}
				env.SetCurrent(t.ID)
				d := SurfaceOut(surfaceOf(surface.Describe(t)))
				d.Active = true
				return &d, nil
			}).sessionWide().as(ActTarget).mcp(Tool{Name: "browser_switch_window", Desc: "Make a page root (not a frame) the target of your later calls."}),
	}
}
