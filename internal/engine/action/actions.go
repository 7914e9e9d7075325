// Package action does what a person does to a page, and reads what they
// would look at: trusted clicks, keys, text input, selection, checking,
// hovering, focus, scrolling, file upload and drag, with the actionability
// checks before input (visible, enabled, stable, on top) and the settling
// after it; reads of text, values, attributes, boxes, state and HTML,
// eval, and screenshots. Targets are refs or locators, resolved through
// package capture; frames and worlds are the engine core's, and a frame's
// points are turned into the page's here (toTop).
// Every function holds the tab's operation lock while it runs.
package action

import (
	"context"
	"errors"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/input"
	"github.com/loupe-dev/loupe/internal/keys"
)

// Result reports what an action did.
type Result struct {
	Surface  string `json:"surface"`
	Ref      string `json:"ref,omitempty"`
	Executed bool   `json:"executed"`
	// Value is the field's value after fill or type, the chosen values
	// after select.
	Value any     `json:"value,omitempty"`
	Note  string  `json:"note,omitempty"`
	URL   string  `json:"url"`
	X     float64 `json:"x,omitempty"`
	Y     float64 `json:"y,omitempty"`
}

// target is an element an action works on, and where its input went in
// its stead (set by point and Upload from agentResult.Via).
type target struct {
	*capture.Element
	via string
	// focusOnly (set by point) says the element is an editor's hidden
	// input: a click focuses it instead (see agentResult.Focus).
	focusOnly bool
}

// resolve finds the element a ref or locator names (see capture.Resolve).
// Caller holds t.Lock.
func resolve(ctx context.Context, t *engine.Surface, ref string) (*target, error) {
	el, err := capture.Resolve(ctx, t, ref)
	if err != nil {
		return nil, err
	}
	return &target{Element: el}, nil
}

// inSubframe reports whether the element is below the top frame.
func (tg *target) inSubframe(t *engine.Surface) bool { return tg.Frame != t.TargetID }

// point prepares the element for pointer input and returns its centre in
// top-level viewport coordinates.
func point(ctx context.Context, t *engine.Surface, tg *target, hit, enabled bool) (x, y float64, err error) {
	r, err := prepare(ctx, t, tg, hit, enabled)
	if err != nil {
		return 0, 0, err
	}
	tg.via, tg.focusOnly = r.Via, r.Focus
	if x, y, err = toTop(ctx, t, tg.Ref, tg.Frame, r.X, r.Y, hit); err != nil {
		return 0, 0, err
	}
	// Checked last, right before the caller sends input: a document on its
	// way out must not take input meant for it (nor may the next one).
	// This also keeps a second click from going out while the first one's
	// navigation (a form submit, a payment) is in flight.
	if err := capture.CheckNavigation(t, tg.Element); err != nil {
		return 0, 0, err
	}
	return x, y, nil
}

// prepare runs the agent's actionability checks; in a subframe the
// protocol scrolls the element into view first (across processes), and
// the agent only checks. Its point is in the element's frame viewport.
func prepare(ctx context.Context, t *engine.Surface, tg *target, hit, enabled bool) (*agentResult, error) {
	scroll := true
	if tg.inSubframe(t) {
		if err := scrollInto(ctx, tg); err != nil {
			return nil, err
		}
		scroll = false
	}
	return runOn(ctx, tg, "prepare", map[string]bool{"hit": hit, "enabled": enabled, "scroll": scroll})
}

// focusFirst gives focus to a subframe element through the protocol before
// the agent works on it (a cross-site frame may not focus itself).
func focusFirst(ctx context.Context, t *engine.Surface, tg *target) error {
	if !tg.inSubframe(t) {
		return nil
	}
	return focusNode(ctx, tg)
}

// scrollInto scrolls an element in a subframe into view through the
// protocol, which scrolls every ancestor, across processes too (the page
// agent in a cross-site frame may not scroll its parent).
func scrollInto(ctx context.Context, tg *target) error {
	err := tg.World.WithObject(ctx, tg.Elem, func(obj runtime.RemoteObjectID) error {
		// An element without a box cannot scroll; prepare reports it hidden.
		_, _ = cdpproto.Call(ctx, tg.World.Session(), dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{ObjectID: obj})
		return nil
	})
	return capture.StaleIfGone(tg.Ref, err)
}

// focusNode focuses an element in a subframe through the protocol, which
// also focuses its frame (a cross-site frame may not take focus from
// script).
func focusNode(ctx context.Context, tg *target) error {
	err := tg.World.WithObject(ctx, tg.Elem, func(obj runtime.RemoteObjectID) error {
		_, _ = cdpproto.Call(ctx, tg.World.Session(), dom.Focus, dom.FocusParams{ObjectID: obj})
		return nil
	})
	return capture.StaleIfGone(tg.Ref, err)
}

// onElement resolves ref and runs one agent action function on its
// element (the element id is passed first); an agent failure becomes a
// registry error. Caller holds t.Lock.
func onElement(ctx context.Context, t *engine.Surface, ref, fn string, args ...any) (*target, *agentResult, error) {
	tg, err := resolve(ctx, t, ref)
	if err != nil {
		return nil, nil, err
	}
	r, err := runOn(ctx, tg, fn, args...)
	return tg, r, err
}

// runOn runs an agent action function on a resolved element.
func runOn(ctx context.Context, tg *target, fn string, args ...any) (*agentResult, error) {
	var r agentResult
	if err := tg.World.Call(ctx, fn, &r, append([]any{tg.Elem}, args...)...); err != nil {
		return nil, capture.StaleIfGone(tg.Ref, err)
	}
	if err := r.check(tg.Ref); err != nil {
		return nil, err
	}
	return &r, nil
}

func result(t *engine.Surface, tg *target) *Result {
	r := &Result{Surface: t.ID, Executed: true, URL: t.URL()}
	if tg != nil {
		r.Ref = tg.Ref
		if tg.via != "" {
			r.Note = "ok " + tg.via
		}
	}
	return r
}

// ClickOptions modify a click.
type ClickOptions struct {
	Button    keys.Button
	Count     int   // 1 click, 2 double click
	Modifiers int64 // keys.Mod* bits
}

// Click clicks the element's centre with trusted mouse input, after
// checking it is attached, visible, enabled, stable and on top.
func Click(ctx context.Context, t *engine.Surface, ref string, o ClickOptions) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		x, y, err := point(ctx, t, tg, true, true)
		if err != nil {
			return nil, err
		}
		if tg.focusOnly && o.Button != "right" {
			return focusEditor(ctx, t, tg)
		}
		if o.Count < 1 {
			o.Count = 1
		}
		if o.Button == "" {
			o.Button = "left"
		}
		if tg.inSubframe(t) {
			routeTo(ctx, t, tg, x, y)
		}
		landed, err := pressCheck(ctx, t, tg, true)
		if err != nil {
			return nil, err
		}
		if err := input.Click(ctx, t.Session(), x, y, o.Button, o.Count, o.Modifiers); err != nil {
			var ap *input.AfterPressError
			if errors.As(err, &ap) && errors.Is(err, cdp.ErrSessionGone) {
				// The click closed its page (window.close() in a handler):
				// the page went before it could answer the release.
				r := result(t, tg)
				r.Note = "clicked; the page closed"
				return r, nil
			}
			return nil, executedErr(err)
		}
		slipped, err := landed()
		if err != nil {
			return nil, err
		}
		r := result(t, tg)
		r.X, r.Y = x, y
		if slipped != "" {
			r.Note = slipped
		}
		return r, nil
	})
}

// Hover moves the mouse over the element's centre.
func Hover(ctx context.Context, t *engine.Surface, ref string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		x, y, err := point(ctx, t, tg, true, false)
		if err != nil {
			return nil, err
		}
		if tg.inSubframe(t) {
			// Input reaches a frame in another process asynchronously:
			// the hover is done once the frame's document has seen the
			// pointer arrive (bounded), so what it set off is there for
			// the next read.
			routeTo(ctx, t, tg, x, y)
		}
		if err := input.Move(ctx, t.Session(), x, y, 0); err != nil {
			return nil, executedErr(err)
		}
		r := result(t, tg)
		r.X, r.Y = x, y
		return r, nil
	})
}

// Focus focuses the element.
func Focus(ctx context.Context, t *engine.Surface, ref string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		if err := focusFirst(ctx, t, tg); err != nil {
			return nil, err
		}
		if _, err := runOn(ctx, tg, "focus"); err != nil {
			return nil, err
		}
		return result(t, tg), nil
	})
}

// Fill replaces the content of an editable field with text: it focuses the
// field, selects everything in it and inserts the text as one input (an
// empty text deletes the selection). Listeners see trusted beforeinput and
// input events, as for a person's typing; the value is never assigned.
func Fill(ctx context.Context, t *engine.Surface, ref, text string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		if err := focusFirst(ctx, t, tg); err != nil {
			return nil, err
		}
		var rg rangeField
		if err := tg.World.Call(ctx, "rangeOf", &rg, tg.Elem); err != nil {
			return nil, capture.StaleIfGone(tg.Ref, err)
		}
		if !rg.OK {
			return nil, (&agentResult{Err: rg.Err, Detail: rg.Detail}).check(tg.Ref)
		}
		switch {
		case rg.Range:
			return fillRange(ctx, t, tg, rg, text)
		case rg.Picker:
			return fillPicker(ctx, t, tg, text)
		}
		r, err := runOn(ctx, tg, "focusSelect", true)
		if err != nil {
			return nil, err
		}
		if err := editorKeys(ctx, t, r); err != nil {
			return nil, err
		}
		switch {
		case text != "":
			err = input.InsertText(ctx, t.Session(), text)
		case !r.Empty:
			err = input.Press(ctx, t.Session(), mustChord("Delete"))
		}
		if err != nil {
			return nil, executedErr(err)
		}
		return withValue(ctx, t, tg), nil
	})
}

// Type types text key by key into the element (after focusing it, caret at
// the end) or, without a ref, into whatever has focus.
func Type(ctx context.Context, t *engine.Surface, ref, text string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		var tg *target
		if ref != "" {
			var err error
			if tg, err = resolve(ctx, t, ref); err != nil {
				return nil, err
			}
			if err := focusFirst(ctx, t, tg); err != nil {
				return nil, err
			}
			r, err := runOn(ctx, tg, "focusSelect", false)
			if err != nil {
				return nil, err
			}
			if err := editorKeys(ctx, t, r); err != nil {
				return nil, err
			}
		}
		if err := input.Type(ctx, t.Session(), text); err != nil {
			return nil, executedErr(err)
		}
		if tg == nil {
			return result(t, nil), nil
		}
		return withValue(ctx, t, tg), nil
	})
}

// focusEditor is a click on an editor's hidden input (see
// agentResult.Focus): the input takes focus, as the editor gives it when a
// person clicks at its caret; the caret stays where it was.
func focusEditor(ctx context.Context, t *engine.Surface, tg *target) (*Result, error) {
	if err := focusFirst(ctx, t, tg); err != nil {
		return nil, err
	}
	if _, err := runOn(ctx, tg, "focus"); err != nil {
		return nil, err
	}
	r := result(t, tg)
	r.Note = "focused the editor's input, which is not drawn (its caret stays where it was); " + tg.via
	return r, nil
}

// editorKeys selects the text of the editor whose hidden input
// focusSelect focused (r.Keys), with the editor's own keys: its text is
// the editor's, not the input's (a code editor's textarea holds a few
// lines, or none). Control+A selects it all (fill), Control+End puts the
// caret at its end (type).
func editorKeys(ctx context.Context, t *engine.Surface, r *agentResult) error {
	var chord string
	switch r.Keys {
	case "all":
		chord = "Control+a"
	case "end":
		chord = "Control+End"
	default:
		return nil
	}
	return input.Press(ctx, t.Session(), mustChord(chord))
}

func withValue(ctx context.Context, t *engine.Surface, tg *target) *Result {
	res := result(t, tg)
	var v struct {
		OK    bool   `json:"ok"`
		Value string `json:"value"`
	}
	if err := tg.World.Call(ctx, "read", &v, tg.Elem, "value"); err == nil && v.OK {
		res.Value = v.Value
	}
	return res
}

// Press presses key chords in order on the focused element.
func Press(ctx context.Context, t *engine.Surface, chords []keys.Chord) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		for i, c := range chords {
			if err := input.Press(ctx, t.Session(), c); err != nil {
				if i == 0 {
					return nil, err
				}
				return nil, executedErr(err)
			}
		}
		// As after a click: what the keys set off (a list filtering, a menu
		// opening) is on the page when the result is taken. A navigation the
		// keys started ends the wait.
		t.NoteInput(time.Now())
		if w, err := t.World(ctx, t.Root()); err == nil {
			afterInput(ctx, w)
		}
		return result(t, nil), nil
	})
}

func ptr[T any](v T) *T { return &v }

func mustChord(s string) keys.Chord {
	c, err := keys.ParseChord(s)
	if err != nil {
		panic(err)
	}
	return c
}

// Select chooses options of a <select> by value or visible label.
func Select(ctx context.Context, t *engine.Surface, ref string, values []string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, r, err := onElement(ctx, t, ref, "selectOptions", values)
		if err != nil {
			return nil, err
		}
		res := result(t, tg)
		res.Value = r.Values
		return res, nil
	})
}

// SetChecked checks or unchecks a checkbox, radio or switch by clicking it
// when its state differs, and verifies the new state. Already being in the
// wanted state is success without input.
func SetChecked(ctx context.Context, t *engine.Surface, ref string, want bool) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		st, err := state(ctx, tg)
		if err != nil {
			return nil, err
		}
		if st.Checked == nil {
			return nil, apitype.Errorf(apitype.NotActionable, "%s is a %s, not a checkbox, radio or switch", tg.Ref, st.Role)
		}
		if cur, _ := st.Checked.(bool); cur == want {
			r := result(t, tg)
			r.Executed = false
			r.Note = "already " + checkWord(want)
			return r, nil
		}
		if !want && st.Role == "radio" {
			return nil, apitype.Errorf(apitype.NotActionable, "%s is a radio button; check another option of its group instead", tg.Ref)
		}
		x, y, err := point(ctx, t, tg, true, true)
		if err != nil {
			return nil, err
		}
		landed, err := pressCheck(ctx, t, tg, false)
		if err != nil {
			return nil, err
		}
		if err := input.Click(ctx, t.Session(), x, y, "left", 1, 0); err != nil {
			return nil, executedErr(err)
		}
		if _, err := landed(); err != nil {
			return nil, err
		}
		st, err = state(ctx, tg)
		if err != nil {
			return nil, executedErr(err)
		}
		if cur, _ := st.Checked.(bool); cur != want {
			return nil, apitype.Errorf(apitype.NotActionable, "clicking %s did not make it %s", tg.Ref, checkWord(want)).Executed()
		}
		return result(t, tg), nil
	})
}

func checkWord(b bool) string {
	if b {
		return "checked"
	}
	return "unchecked"
}

// Upload sets the files of a file input, as choosing them in the file
// dialog would (the page sees input and change events). Paths must be
// files the caller may hand to the page; the executor confines them.
func Upload(ctx context.Context, t *engine.Surface, ref string, paths []string) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		tg, r, err := onElement(ctx, t, ref, "fileInput")
		if err != nil {
			return nil, err
		}
		if len(paths) > 1 && !r.Multiple {
			return nil, apitype.Errorf(apitype.BadInput, "%s takes one file, got %d", tg.Ref, len(paths))
		}
		elem := tg.Elem
		if r.I != 0 {
			// An upload button: its own (hidden) file input takes the files.
			elem, tg.via = r.I, r.Via
		}
		sent := false
		err = tg.World.WithObject(ctx, elem, func(obj runtime.RemoteObjectID) error {
			sent = true
			_, err := cdpproto.Call(ctx, tg.World.Session(), dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, ObjectID: obj})
			return err
		})
		switch {
		case err != nil && !sent:
			return nil, capture.StaleIfGone(tg.Ref, err)
		case err != nil:
			return nil, executedErr(err)
		}
		res := result(t, tg)
		res.Value = paths
		return res, nil
	})
}

// ScrollOptions say how far to scroll, in CSS pixels.
type ScrollOptions struct {
	DX, DY float64
}

// Bounds of the wait for a wheel turn's scrolling to end: when nothing
// scrolls within wheelNone (the end of the range, say), and in all.
const (
	wheelNone   = 150 * time.Millisecond
	wheelSettle = time.Second
)

// Scroll scrolls the element into view or, with deltas, turns the mouse
// wheel over the element (or the middle of the viewport without a ref),
// and returns once the scrolling it set off has come to rest.
func Scroll(ctx context.Context, t *engine.Surface, ref string, o ScrollOptions) (*Result, error) {
	return engine.Exclusively(ctx, t, func() (*Result, error) {
		var (
			tg   *target
			x, y float64
			err  error
		)
		if ref != "" {
			if tg, err = resolve(ctx, t, ref); err != nil {
				return nil, err
			}
			if x, y, err = point(ctx, t, tg, false, false); err != nil {
				return nil, err
			}
		} else {
			w, err := t.World(ctx, t.Root())
			if err != nil {
				return nil, err
			}
			var vp struct{ W, H float64 }
			if err := w.Eval(ctx, "({W: innerWidth, H: innerHeight})", &vp); err != nil {
				return nil, err
			}
			x, y = vp.W/2, vp.H/2
			if t.IsFrame() {
				// The middle of the frame's own viewport, in page coordinates.
				if x, y, err = toTop(ctx, t, "", t.Root(), x, y, false); err != nil {
					return nil, err
				}
			}
		}
		if o.DX != 0 || o.DY != 0 {
			w := t.CurrentWorld(t.Root())
			if tg != nil {
				w = tg.World
			}
			var mark agentResult
			marked := w != nil && w.Call(ctx, "scrollMark", &mark) == nil
			if err := input.Wheel(ctx, t.Session(), x, y, o.DX, o.DY); err != nil {
				return nil, executedErr(err)
			}
			if marked {
				var r agentResult
				_ = w.Call(ctx, "scrollSettled", &r, mark.Seq, wheelNone.Milliseconds(), wheelSettle.Milliseconds())
			}
		}
		r := result(t, tg)
		r.X, r.Y = x, y
		return r, nil
	})
}
