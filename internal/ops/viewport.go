package ops

import (
	"strconv"
	"strings"

	"github.com/loupe-dev/loupe/internal/viewport"
	"github.com/loupe-dev/loupe/internal/wire"
)

// ViewportIn sets the current tab's viewport preference.
type ViewportIn struct {
	Size   string  `json:"size" arg:"SIZE" help:"WIDTHxHEIGHT in CSS pixels (390x844), or reset for the window's own size"`
	Scale  float64 `json:"scale,omitempty" flag:"scale" meta:"N" help:"device pixel ratio (default: the screen's)"`
	Mobile bool    `json:"mobile,omitempty" flag:"mobile" help:"emulate a mobile device (viewport meta tag, touch-style scrollbars)"`

	v *viewport.Viewport // the parsed size; nil for reset
}

// Viewport is the size Validate parsed (nil for reset).
func (in *ViewportIn) Viewport() *viewport.Viewport { return in.v }

// ViewportOut reports the tab's viewport preference.
type ViewportOut = wire.ViewportOut

// Validate parses the size and checks it and the scale.
func (in *ViewportIn) Validate() error {
	if in.Size == "reset" {
		if in.Scale != 0 || in.Mobile {
			return usage("viewport reset takes no %s or %s", fld("scale"), fld("mobile"))
		}
		return nil
	}
	w, h, ok := strings.Cut(in.Size, "x")
	width, errW := strconv.Atoi(w)
	height, errH := strconv.Atoi(h)
	if !ok || errW != nil || errH != nil {
		return usage("%s %q: want WIDTHxHEIGHT in CSS pixels (390x844), or reset", fld("size"), in.Size)
	}
	v := viewport.Viewport{Width: width, Height: height, Scale: in.Scale, Mobile: in.Mobile}
	if err := v.Check(); err != nil {
		return usage("%v", err)
	}
	in.v = &v
	return nil
}

func viewportOps() []*Op {
	return []*Op{
		describe[ViewportIn, ViewportOut]("viewport", "lay the current tab out at a size of its own (kept with the tab, also across restarts), or reset it", Write, actTimeout).as(ActInput).mcp(Tool{Name: "browser_viewport", Desc: "Lay the current tab out at a size of its own (size \"390x844\", optional scale and mobile), or \"reset\" to the window's size; kept with the tab."}),
	}
}
