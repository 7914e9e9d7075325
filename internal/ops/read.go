package ops

import (
	"math"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/wire"
)

// TextIn is the input of text.
type TextIn struct {
	Target string `json:"ref,omitempty" arg:"[TARGET]" help:"element whose text to print; without it, the whole page"`
}

// Validate checks the optional ref.
func (in *TextIn) Validate() error { return checkTarget("ref", in.Target, false) }

// AttrIn is the input of attr.
type AttrIn struct {
	Target string `json:"ref" arg:"TARGET" help:"the element: a ref (e12) or a locator"`
	Name   string `json:"name" arg:"NAME" help:"attribute name"`
}

// Validate checks the ref and name.
func (in *AttrIn) Validate() error {
	if in.Name == "" {
		return usage("missing attribute %s", fld("name"))
	}
	return checkTarget("ref", in.Target, true)
}

// EvalIn is the input of eval.
type EvalIn struct {
	JS string `json:"expression" arg:"JS" help:"a JavaScript expression; promises are awaited"`
}

// Validate checks there is an expression.
func (in *EvalIn) Validate() error {
	if strings.TrimSpace(in.JS) == "" {
		return usage("missing %s", fld("expression"))
	}
	return nil
}

// WaitIn is the input of wait.
type WaitIn struct {
	Text   string `json:"text,omitempty" flag:"text" help:"wait until this text appears on the page"`
	Target string `json:"ref,omitempty" flag:"target" help:"wait until this element is visible"`
	URL    string `json:"url,omitempty" flag:"url" meta:"PATTERN" help:"wait until the address matches PATTERN (a glob with *, else a substring)" mcphelp:"wait until the URL matches this (a glob with *, else a substring)"`
	Load   bool   `json:"load,omitempty" flag:"load" help:"wait until the page has loaded"`
	// TextGone and Time: a wait for text to disappear (a spinner's
	// "Loading…"), and a plain wait when nothing on the page tells.
	TextGone string `json:"text_gone,omitempty" flag:"text-gone" meta:"TEXT" help:"wait until this text is gone from the page, frames included"`
	Time     Millis `json:"time_ms,omitempty" flag:"time" meta:"DURATION" help:"just wait this long (at most 60s), e.g. 500ms" mcphelp:"just wait this many milliseconds (at most 60000)"`
	Timeout  Millis `json:"timeout_ms,omitempty" flag:"timeout" meta:"DURATION" help:"how long to wait (default 3s, at most 60s), e.g. 500ms or 5s" mcphelp:"how long to wait, in milliseconds (default 3000, at most 60000)"`

	timeout time.Duration
}

// timeSlack is the deadline a time wait has past its time: the wait ends
// by its timer, not its deadline.
const timeSlack = time.Second

// Wait is how long to wait, as Validate worked it out.
func (in *WaitIn) Wait() time.Duration { return in.timeout }

// Validate checks that exactly one condition is given and the timeout.
func (in *WaitIn) Validate() error {
	n := 0
	for _, set := range []bool{in.Text != "", in.Target != "", in.URL != "", in.Load, in.TextGone != "", in.Time != 0} {
		if set {
			n++
		}
	}
	if n != 1 {
		return usage("give exactly one of %s, %s, %s, %s, %s, %s", fld("text"), fld("text_gone"), fld("ref"), fld("url"), fld("load"), fld("time_ms"))
	}
	if in.Time != 0 {
		d := in.Time.Duration()
		if d <= 0 || d > maxWait || in.Timeout != 0 {
			return usage("%s %d: want a positive time up to %s, without %s", fld("time_ms"), in.Time, maxWait, fld("timeout_ms"))
		}
		in.timeout = d + timeSlack
		return nil
	}
	in.timeout = waitTimeout
	if in.Timeout != 0 {
		d := in.Timeout.Duration()
		if d <= 0 {
			return usage("%s %d: want a positive time", fld("timeout_ms"), in.Timeout)
		}
		if d > maxWait {
			return usage("%s %s is longer than the %s limit", fld("timeout_ms"), d, maxWait)
		}
		in.timeout = d
	}
	return checkTarget("ref", in.Target, false)
}

// ScreenshotIn is the input of screenshot.
type ScreenshotIn struct {
	Target string `json:"ref,omitempty" arg:"[TARGET]" help:"element to capture; without it, the viewport"`
	Full   bool   `json:"full,omitempty" flag:"full" help:"capture the whole page, not only the viewport"`
	// Annotate ties what a vision model sees to refs.
	Annotate bool   `json:"annotate,omitempty" flag:"annotate" help:"outline and label each visible ref on the image (frames included), and list them with their snapshot lines"`
	Out      string `json:"-" flag:"o" help:"write the PNG to this file (default: the session's directory)"`
	// Data asks for the PNG bytes in the reply instead of a file.
	Data bool `json:"data,omitempty" mcp:"-" cli:"set by -o FILE"`
	// Inline asks for the bytes as well as the file (MCP shows the image
	// and names the file).
	Inline bool `json:"inline,omitempty" mcp:"-" cli:"MCP only: the image in the reply"`
}

// Validate checks the optional ref and that ref and --full don't mix.
func (in *ScreenshotIn) Validate() error {
	if in.Target != "" && in.Full {
		return usage("give a %s or %s, not both", fld("ref"), fld("full"))
	}
	return checkTarget("ref", in.Target, false)
}

// PickIn is the input of pick: a point of the tab's viewport.
type PickIn struct {
	X float64 `json:"x" arg:"X" help:"CSS pixels from the viewport's left edge"`
	Y float64 `json:"y" arg:"Y" help:"CSS pixels from the viewport's top edge"`
}

// maxPick bounds a pick's coordinates (a viewport is far smaller).
const maxPick = 1 << 20

// Validate checks that the point is in the viewport's quadrant.
func (in *PickIn) Validate() error {
	for _, v := range []float64{in.X, in.Y} {
		if math.IsNaN(v) || v < 0 || v > maxPick {
			return usage("%s and %s: CSS pixels from the viewport's top-left corner, 0 to %d", fld("x"), fld("y"), maxPick)
		}
	}
	return nil
}

// PickOut is pick's output.
type PickOut = wire.PickOut

func readOps() []*Op {
	return []*Op{
		describe[TextIn, ValueOut]("text", "print the visible text of an element or of the page", Read, actTimeout).mcp(Tool{Name: "browser_read", Core: true, Select: "what", Value: "text", Default: true, Desc: "Read an element's text, value, attribute, box, state or HTML (text without ref: the page)."}),
		describe[TargetIn, ValueOut]("html", "print an element's outer HTML", Read, actTimeout).mcp(Tool{Name: "browser_read", Select: "what", Value: "html"}),
		describe[TargetIn, ValueOut]("value", "print a field's current value", Read, actTimeout).mcp(Tool{Name: "browser_read", Select: "what", Value: "value"}),
		describe[AttrIn, ValueOut]("attr", "print one attribute of an element", Read, actTimeout).mcp(Tool{Name: "browser_read", Select: "what", Value: "attribute"}),
		describe[TargetIn, BoxOut]("box", "print an element's box in viewport coordinates", Read, actTimeout).mcp(Tool{Name: "browser_read", Select: "what", Value: "box"}),
		describe[TargetIn, StateOut]("state", "print an element's role and state (visible, enabled, checked, …)", Read, actTimeout).mcp(Tool{Name: "browser_read", Select: "what", Value: "state"}),
		describe[EvalIn, EvalOut]("eval", "evaluate JavaScript in the page and print its JSON value", Write, actTimeout).as(ActEval).mcp(Tool{Name: "browser_eval", Gate: "eval", Desc: "Evaluate JavaScript in the page and return its JSON value; reports what changed."}),
		describe[WaitIn, WaitOut]("wait", "wait (bounded, default 3s) for text to appear or go, an element, a URL, the load event, or a time", Read, maxWait+5*time.Second).mcp(Tool{Name: "browser_wait", Core: true, Desc: "Wait (default 3 s, at most 60 s) for a text to appear (text) or go (text_gone), an element, a URL, the load event, or just a time (time_ms)."}),
		describe[PickIn, PickOut]("pick", "name the element at a point of the viewport: its snapshot line, ref and stable locator (the dashboard's pick mode)", Read, actTimeout).
			noMCP("a person points at the live view; an agent reads refs from its snapshot, or a screenshot's observation with browser_pointer"),
		describe[ScreenshotIn, ScreenshotOut]("screenshot", "capture a PNG of the viewport, the full page or an element", Read, actTimeout).mcp(Tool{Name: "browser_screenshot", Core: true, Fixed: map[string]any{"inline": true}, Desc: "A PNG of the viewport, the full page or one element; returns the image and the file's path."}),
	}
}
