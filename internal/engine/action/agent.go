package action

import (
	"context"
	"fmt"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

// agentResult is what the page agent's element functions return (prepare,
// frameOffset, focusSelect, selectOptions, fileInput, armPress, …): OK, or
// why not, and the facts the function found.
type agentResult struct {
	OK     bool   `json:"ok"`
	Err    string `json:"err"`
	Detail string `json:"detail"`
	Missed bool   `json:"missed"` // afterPress: no press reached the element's document
	// Unreleased (afterPress): the press reached it, its release did not.
	Unreleased bool `json:"unreleased"`
	// Slipped (afterPress) is where the release of a press on the
	// element landed when that was elsewhere: no click reached it.
	Slipped  string   `json:"slipped"`
	X        float64  `json:"x"`
	Y        float64  `json:"y"`
	W        float64  `json:"w"`
	H        float64  `json:"h"`
	Empty    bool     `json:"empty"`
	Multiple bool     `json:"multiple"`
	Values   []string `json:"values"`
	Seq      int64    `json:"seq"`
	I        int64    `json:"i"` // another element the action goes to (fileInput)
	// Via says where the input went in the element's stead: through the
	// label or drawn wrapper of a hidden native toggle, at the visible
	// element that stands for an invisible control, or at a part of its
	// own widget lying on top of it.
	Via string `json:"via"`
	// Focus (prepare) says the element is the hidden input of an editor
	// it lies in: a click on it is the editor taking focus at its caret,
	// not a press somewhere in the editor's text.
	Focus bool `json:"focus"`
	// Keys (focusSelect) says the field is an editor's hidden input,
	// focused, and what of the editor's text the engine selects with the
	// editor's own keys before it types: "all" (fill) or "end" (type).
	Keys string `json:"keys"`
}

// notActionable words the agent's refusals: the ref, then the agent's
// detail, go into the format.
var notActionable = map[string]string{
	"hidden":      "%s is not visible (%s)",
	"disabled":    "%s is disabled (%s)",
	"covered":     "%s is covered: %s",
	"unstable":    "%s keeps moving (animating): %s",
	"noteditable": "%s is not an editable field (%s)",
	"unfocusable": "%s cannot take focus (%s)",
	"notselect":   "%s is not a <select> (%s); click the option instead",
	"notfile":     "%s is not a file input (%s)",
}

// check turns an agent failure about ref's element into a registry error
// (nil when r is OK).
func (r *agentResult) check(ref string) error {
	if r.OK {
		return nil
	}
	if f, ok := notActionable[r.Err]; ok {
		return apitype.Errorf(apitype.NotActionable, f, ref, r.Detail)
	}
	switch r.Err {
	case "gone":
		return capture.Stale(ref, "the element was removed from the page")
	case "nooption":
		return apitype.Errorf(apitype.BadInput, "%s: %s", ref, r.Detail)
	}
	return fmt.Errorf("page agent: %s %s", r.Err, r.Detail)
}

// toTop turns a point in a frame's viewport into top-level viewport
// coordinates, where input goes (the page's session). A frame's viewport
// coordinates become its parent's by adding the content-box origin of its
// <iframe> (border and padding included, the parent's scroll already in
// the box), level by level up to the top. With hit, each level checks the
// point lands on the frame's iframe (nothing in the parent covers it); a
// miss is NOT_ACTIONABLE about ref.
func toTop(ctx context.Context, t *engine.Surface, ref, frameID string, x, y float64, hit bool) (float64, float64, error) {
	for id := frameID; id != t.TargetID; {
		f, ok := t.Frame(id)
		if !ok || f.Parent == "" {
			return 0, 0, capture.Stale(ref, "its frame is gone")
		}
		owner, err := t.FrameOwner(ctx, id, f.Parent)
		if err != nil {
			return 0, 0, capture.StaleIfGone(ref, err)
		}
		pw, err := t.World(ctx, f.Parent)
		if err != nil {
			return 0, 0, capture.StaleIfGone(ref, err)
		}
		var r agentResult
		if err := pw.Call(ctx, "frameOffset", &r, owner, x, y, hit); err != nil {
			return 0, 0, capture.StaleIfGone(ref, err)
		}
		if err := r.check(ref); err != nil {
			return 0, 0, err
		}
		x, y, id = r.X, r.Y, f.Parent
	}
	return x, y, nil
}
