package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/internal/engine"
)

// SurfacesOut lists surfaces. Its JSON is exactly the design's:
// {"active_surface_id": …, "surfaces": [descriptor…]}.
type SurfacesOut struct {
	ActiveSurfaceID string           `json:"active_surface_id"`
	Surfaces        []engine.Surface `json:"surfaces"`
}

// Text is one line a surface, indented under its parent, the active one
// starred.
func (o *SurfacesOut) Text() string {
	depth := map[string]int{}
	var b strings.Builder
	for _, s := range o.Surfaces {
		d := 0
		if s.ParentID != "" {
			d = depth[s.ParentID] + 1
		}
		depth[s.ID] = d
		b.WriteString(surfaceLine(s, strings.Repeat("  ", d)))
		b.WriteByte('\n')
	}
	if len(o.Surfaces) == 0 {
		return "no surfaces (open a page with `loupe open URL`)"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func surfaceLine(s engine.Surface, indent string) string {
	mark := " "
	if s.Active {
		mark = "*"
	}
	line := fmt.Sprintf("%s %s%s %s", mark, indent, s.ID, s.Kind)
	if s.OriginRelation != "" {
		line += " " + s.OriginRelation
	}
	if s.Title != "" {
		line += fmt.Sprintf(" %q", s.Title)
	}
	if s.URL != "" {
		line += " " + s.URL
	}
	c := s.Capabilities
	if !c.Snapshot || !c.Interaction || !c.RendererEval {
		var no []string
		for _, x := range []struct {
			ok   bool
			name string
		}{{c.Snapshot, "snapshot"}, {c.Interaction, "interaction"}, {c.RendererEval, "eval"}} {
			if !x.ok {
				no = append(no, x.name)
			}
		}
		line += " (no " + strings.Join(no, ", ") + ")"
	}
	return line
}

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

// SurfaceOut is one surface's descriptor.
type SurfaceOut engine.Surface

// Text is the surface's line.
func (o *SurfaceOut) Text() string { return surfaceLine(engine.Surface(*o), "") }

// WindowsOut lists the page roots.
type WindowsOut struct {
	ActiveSurfaceID string          `json:"active_surface_id"`
	Windows         []engine.Window `json:"windows"`
}

// Text is one line a page root.
func (o *WindowsOut) Text() string {
	if len(o.Windows) == 0 {
		return "no windows"
	}
	var b strings.Builder
	for _, w := range o.Windows {
		b.WriteString(surfaceLine(w.Surface, ""))
		if w.WindowID != 0 {
			fmt.Fprintf(&b, " [window %d]", w.WindowID)
		}
		if w.OpenerID != "" {
			fmt.Fprintf(&b, " (opened by %s)", w.OpenerID)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// StatusOut is the session's status.
type StatusOut engine.Status

// Text is one line.
func (o *StatusOut) Text() string {
	return fmt.Sprintf("active %s %s; pages %s; %d dialogs, %d downloads so far",
		orNone(o.Active), o.URL, strings.Join(o.Pages, " "), o.Dialogs, o.Downloads)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func surfaceOps() []*Op {
	browser := func(ctx context.Context, env Env) (*engine.Browser, error) { return env.Browser(ctx) }
	return []*Op{
		define("status", "print the active surface, its URL, the page roots and the dialog and download counts", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*StatusOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				s := StatusOut(b.Status())
				s.Active, s.URL = env.Current(), ""
				if t, err := b.Tab(ctx, s.Active); s.Active != "" && err == nil {
					s.URL = t.URL()
				}
				return &s, nil
			}).mcp(Tool{Name: "browser_status", Desc: "Your current surface, its URL, the page roots and the dialog and download counts."}),
		define("surfaces", "list every surface: tabs, windows, webviews and frames, parent-first", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*SurfacesOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				_, list := b.Surfaces(ctx)
				cur := env.Current()
				for i := range list {
					list[i].Active = list[i].ID == cur
				}
				return &SurfacesOut{ActiveSurfaceID: cur, Surfaces: list}, nil
			}).mcp(Tool{Name: "browser_surfaces", Desc: "List every surface (tabs, popups, frames, Electron windows and views), parent-first, with your current one."}),
		define("switch", "select a surface for every later operation", Write, actTimeout,
			func(ctx context.Context, env Env, in *SurfaceIDIn) (*SurfaceOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				t, err := b.Switch(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				env.SetCurrent(t.ID)
				d := SurfaceOut(t.Describe())
				d.Active = true
				return &d, nil
			}).as(ActTarget).mcp(Tool{Name: "browser_switch_surface", Desc: "Make a surface (a tab or a frame) the target of your later calls."}),
		define("windows", "list the page roots (tabs, windows, views, webviews) with their window ids", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*WindowsOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				cur := env.Current()
				ws := b.Windows(ctx)
				for i := range ws {
					ws[i].Active = ws[i].ID == cur
				}
				return &WindowsOut{ActiveSurfaceID: cur, Windows: ws}, nil
			}).mcp(Tool{Name: "browser_windows", Desc: "List the page roots (tabs, windows, views, webviews) with their window ids."}),
		define("switch-window", "select a page root (not a frame) for every later operation", Write, actTimeout,
			func(ctx context.Context, env Env, in *SurfaceIDIn) (*SurfaceOut, error) {
				b, err := browser(ctx, env)
				if err != nil {
					return nil, err
				}
				t, err := b.SwitchWindow(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				env.SetCurrent(t.ID)
				d := SurfaceOut(t.Describe())
				d.Active = true
				return &d, nil
			}).as(ActTarget).mcp(Tool{Name: "browser_switch_window", Desc: "Make a page root (not a frame) the target of your later calls."}),
	}
}
