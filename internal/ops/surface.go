package ops

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
	return []*Op{
		describe[NoIn, StatusOut]("status", "print your current surface, its URL, the page roots and the dialog and download counts", Read, actTimeout).sessionWide().mcp(Tool{Name: "browser_status", Desc: "Your current surface, its URL, the page roots and the dialog and download counts."}),
		describe[NoIn, SurfacesOut]("surfaces", "list every surface: tabs, windows, webviews and frames, parent-first", Read, actTimeout).sessionWide().mcp(Tool{Name: "browser_surfaces", Desc: "List every surface (tabs, popups, frames, Electron windows and views), parent-first, with your current one."}),
		describe[SurfaceIDIn, SurfaceOut]("switch", "make a surface your current one (the target of your later operations)", Write, actTimeout).sessionWide().as(ActTarget).mcp(Tool{Name: "browser_switch_surface", Desc: "Make a surface (a tab or a frame) the target of your later calls."}),
		describe[NoIn, WindowsOut]("windows", "list the page roots (tabs, windows, views, webviews) with their window ids", Read, actTimeout).sessionWide().mcp(Tool{Name: "browser_windows", Desc: "List the page roots (tabs, windows, views, webviews) with their window ids."}),
		describe[SurfaceIDIn, SurfaceOut]("switch-window", "make a page root (not a frame) your current surface", Write, actTimeout).sessionWide().as(ActTarget).mcp(Tool{Name: "browser_switch_window", Desc: "Make a page root (not a frame) the target of your later calls."}),
	}
}
