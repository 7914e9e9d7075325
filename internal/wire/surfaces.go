package wire

import (
	"fmt"
	"strings"
)

// Surface kinds (Surface.Kind). A kind is claimed only when the transport
// knows it; otherwise it is other.
const (
	KindTab             = "tab"              // a Chromium page target
	KindWindow          = "window"           // an Electron BrowserWindow's page
	KindWebContentsView = "webcontents_view" // an Electron WebContentsView
	KindWebview         = "webview"          // an Electron <webview> guest
	KindFrame           = "frame"            // an iframe, in or out of process
	KindOther           = "other"            // a renderer loupe cannot classify
)

// Origin relations (Surface.OriginRelation) of a frame to its parent. An
// about:blank or srcdoc frame that inherits its parent's origin is
// same-origin; sandboxed frames and data: URLs are opaque.
const (
	SameOrigin  = "same-origin"
	CrossOrigin = "cross-origin"
	Opaque      = "opaque"
)

// Surface is the surface descriptor of the design, field names included.
type Surface struct {
	ID       string `json:"id" cap:"-"`
	Kind     string `json:"kind" cap:"-"`
	ParentID string `json:"parentId,omitempty" cap:"-"`
	Title    string `json:"title,omitempty" cap:"title"`
	URL      string `json:"url,omitempty" cap:"url"`
	// Active is the caller's current surface.
	Active       bool         `json:"active"`
	Capabilities Capabilities `json:"capabilities"`
	// OriginRelation is a frame's origin relative to its parent's
	// (omitted for page roots, and while a frame's origin is unknown).
	OriginRelation string `json:"originRelation,omitempty" cap:"-"`
	// Crashed: the surface's renderer crashed.
	Crashed bool `json:"crashed,omitempty"`
}

// Capabilities are what loupe can really do on a surface now.
type Capabilities struct {
	Snapshot     bool `json:"snapshot"`
	Interaction  bool `json:"interaction"`
	RendererEval bool `json:"rendererEval"`
}

// SurfacesOut lists surfaces: {"active_surface_id": …, "surfaces":
// [descriptor…]}. The list is flat and parent-first: every surface comes
// after its parent.
type SurfacesOut struct {
	ActiveSurfaceID string    `json:"active_surface_id" cap:"-"`
	Surfaces        []Surface `json:"surfaces"`
}

// Text is one line a surface, indented under its parent, the active one
// starred.
func (o *SurfacesOut) Text() string {
	if len(o.Surfaces) == 0 {
		return "no surfaces (open a page first)"
	}
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
	return strings.TrimSuffix(b.String(), "\n")
}

func surfaceLine(s Surface, indent string) string {
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
	if s.Crashed {
		line += " [crashed]"
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

// SurfaceOut is one surface's descriptor (switch, switch-window).
type SurfaceOut Surface

// Text is the surface's line.
func (o *SurfaceOut) Text() string { return surfaceLine(Surface(*o), "") }

// Window is a page root as the window-oriented view lists it: its
// descriptor's fields, and two of its own.
type Window struct {
	Surface
	// WindowID is the browser window that shows the page (omitted when
	// the browser does not say).
	WindowID int64 `json:"windowId,omitempty"`
	// OpenerID is the surface that opened the page (window.open).
	OpenerID string `json:"openerId,omitempty" cap:"-"`
}

// WindowsOut lists the page roots, parent-first.
type WindowsOut struct {
	ActiveSurfaceID string   `json:"active_surface_id" cap:"-"`
	Windows         []Window `json:"windows"`
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

// StatusOut is a cheap summary of the session.
type StatusOut struct {
	Active    string   `json:"active_surface_id" cap:"-"`
	URL       string   `json:"url,omitempty" cap:"url"` // the active surface's
	Pages     []string `json:"pages" cap:"-"`           // live page roots, in order
	Dialogs   int64    `json:"dialogs"`                 // dialogs seen so far
	Downloads int64    `json:"downloads"`               // downloads begun so far
	// Browser is where the session's browser runs: local (launched
	// here), attached (over CDP) or grid (taken from a Selenium Grid,
	// named by Grid).
	Browser string     `json:"browser" cap:"-"`
	Grid    *GridPlace `json:"grid,omitempty"`
}

// Text is one line.
func (o *StatusOut) Text() string {
	return fmt.Sprintf("active %s %s; pages %s; %d dialogs, %d downloads so far; browser %s",
		orNone(o.Active), o.URL, strings.Join(o.Pages, " "), o.Dialogs, o.Downloads, o.Grid.text(o.Browser))
}

// Tab is one tab as tabs lists it.
type Tab struct {
	ID     string `json:"id" cap:"-"`
	Title  string `json:"title" cap:"title"`
	URL    string `json:"url" cap:"url"`
	Active bool   `json:"active"`
	Opener string `json:"opener,omitempty" cap:"-"` // the surface that opened it
	// Owner is the task that owns the tab ("": shared).
	Owner string `json:"owner,omitempty" cap:"-"`
	// Mode is "human" while a person has the tab (omitted otherwise).
	Mode string `json:"mode,omitempty" cap:"-"`
	// Crashed: the tab's renderer crashed and it has not been reloaded.
	Crashed bool `json:"crashed,omitempty"`
	// Partition is where the tab's cookies and storage live: "persist"
	// (the session's profile) or "temp:NAME" (in memory, gone with the
	// partition's last tab).
	Partition string `json:"partition,omitempty" cap:"-"`
	// Session is the session the tab belongs to; Epoch counts its
	// hand-overs between agents and a person (0: never handed over).
	Session string `json:"session,omitempty" cap:"-"`
	Epoch   int64  `json:"epoch,omitempty"`
	// Navigating: a navigation of the page is under way.
	Navigating bool `json:"navigating,omitempty"`
	// Restored: the tab was restored after a daemon restart and has not
	// loaded yet; Title and URL are what it showed, and it loads them when
	// an operation first works in it or switches to it.
	Restored bool `json:"restored,omitempty"`
}

// TabsOut lists tabs.
type TabsOut struct {
	Active string `json:"active" cap:"-"`
	Tabs   []Tab  `json:"tabs"`
}

// KeepTabs leaves only the tabs keep accepts: a confined caller (a
// remote agent) sees its own tabs and no other (see ops.TabFilter).
func (o *TabsOut) KeepTabs(keep func(id string) bool) {
	kept := o.Tabs[:0]
	for _, t := range o.Tabs {
		if keep(t.ID) {
			kept = append(kept, t)
		}
	}
	o.Tabs = kept
	if o.Active != "" && !keep(o.Active) {
		o.Active = ""
	}
}

// Text is one line a tab, the active one starred.
func (o *TabsOut) Text() string {
	var b strings.Builder
	for _, t := range o.Tabs {
		mark := " "
		if t.Active {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s %q %s", mark, t.ID, t.Title, t.URL)
		if t.Opener != "" {
			fmt.Fprintf(&b, " (opened by %s)", t.Opener)
		}
		if t.Owner != "" {
			fmt.Fprintf(&b, " task %s", t.Owner)
		}
		if t.Mode != "" {
			b.WriteString(" [" + t.Mode + "]")
		}
		if t.Crashed {
			b.WriteString(" [crashed]")
		}
		if t.Partition != "" && t.Partition != "persist" {
			b.WriteString(" [" + t.Partition + "]")
		}
		if t.Navigating {
			b.WriteString(" [navigating]")
		}
		if t.Restored {
			b.WriteString(" [restored]")
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TabOut reports one tab (tab new, tab close, tab activate).
type TabOut struct {
	Tab
	Closed bool `json:"closed,omitempty"`
	// OwnClosed says the caller closed its own current tab; Current is
	// then its current tab now: the one it was on before ("" when none
	// of those is open: its next command uses the first tab).
	OwnClosed bool   `json:"own_closed,omitempty"`
	Current   string `json:"current_surface_id,omitempty" cap:"-"`
}

// Text is the tab's line.
func (o *TabOut) Text() string {
	if o.Closed {
		switch {
		case o.Current != "":
			return "closed " + o.ID + "; your current tab is now " + o.Current + ", the one you were on before"
		case o.OwnClosed:
			return "closed " + o.ID + "; none of the tabs you were on before is open: your next command uses the first tab"
		}
		return "closed " + o.ID
	}
	return fmt.Sprintf("%s %q %s", o.ID, o.Title, o.URL)
}

// ViewportOut reports a tab's viewport preference after viewport.
type ViewportOut struct {
	SurfaceID string `json:"surface_id" cap:"-"`
	// Width and Height are the emulated size in CSS pixels (0: the
	// window's own, after viewport reset).
	Width  int     `json:"width,omitempty"`
	Height int     `json:"height,omitempty"`
	Scale  float64 `json:"scale,omitempty"` // device pixel ratio (0: the screen's)
	Mobile bool    `json:"mobile,omitempty"`
}

// Text is one line.
func (o *ViewportOut) Text() string {
	if o.Width == 0 {
		return o.SurfaceID + " lays out at its window's own size again"
	}
	s := fmt.Sprintf("%s lays out at %dx%d", o.SurfaceID, o.Width, o.Height)
	if o.Scale != 0 {
		s += fmt.Sprintf(", scale %g", o.Scale)
	}
	if o.Mobile {
		s += ", as a mobile device"
	}
	return s
}
