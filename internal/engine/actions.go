package engine

import (
	"context"
	"errors"
	"fmt"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/input"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// ActionResult reports what an action did.
type ActionResult struct {
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

// target is a ref resolved to its element in its current document.
type resolved struct {
	ref   string
	w     *world
	elem  int64
	frame string
	// via is set by point when the input goes to the element's own
	// label, wrapper or widget part (agentResult.Via).
	via string
}

// inSubframe reports whether the element is below the top frame.
func (r *resolved) inSubframe(t *Tab) bool { return r.frame != t.TargetID }

// resolve finds the element a target names: a ref (e12, @e12) or a locator
// (role=button[name="Save"], testid=…, css=…, #id, with >> into frames).
// It never guesses: a ref from an earlier document, or whose frame is gone,
// is STALE_REF (naming the element its locator finds now, if exactly one,
// as a similar ref; it is not acted on); a ref never issued is
// REF_NOT_FOUND; a locator that matches nothing is REF_NOT_FOUND and one
// that matches several is AMBIGUOUS with their refs. Caller holds t.op.
func (t *Tab) resolve(ctx context.Context, target string) (*resolved, error) {
	ref, err := snapshot.NormalizeRef(target)
	if err != nil {
		loc, lerr := snapshot.ParseLocator(target)
		if lerr != nil {
			return nil, apitype.Errorf(apitype.BadInput, "%q is neither a ref (e12) nor a locator: %v", target, lerr)
		}
		b, err := t.locateOne(ctx, loc)
		if err != nil {
			return nil, err
		}
		ref = b.Ref
	}
	b, ok := t.refs.Lookup(ref)
	if !ok {
		if d, ok := t.refs.Dropped(ref); ok {
			return nil, t.withSimilar(ctx, staleErr(ref, "it was taken from a page that has since changed or navigated"), d)
		}
		if owner, elsewhere := t.refs.OwnerOf(ref); elsewhere && owner != "" {
			e := apitype.Errorf(apitype.RefWrongSurface, "%s belongs to surface %s, not %s", ref, owner, t.ID)
			e.SurfaceID = owner
			e.Hint = fmt.Sprintf("switch to it (`loupe switch %s`) or take a snapshot of %s and use its refs", owner, t.ID)
			return nil, e
		}
		if t.refs.Issued(ref) {
			return nil, staleErr(ref, "it was taken from a page that has since changed or navigated")
		}
		return nil, apitype.Errorf(apitype.RefNotFound, "%s was never issued on surface %s", ref, t.ID)
	}
	if _, ok := t.frameState(b.Doc.Frame); !ok {
		return nil, t.withSimilar(ctx, staleErr(ref, "its frame is gone"), b)
	}
	w := t.currentWorld(b.Doc.Frame)
	if w == nil || w.ctxID != b.Doc.World {
		return nil, t.withSimilar(ctx, staleErr(ref, "its document has navigated since the snapshot"), b)
	}
	if t.navigating(b.Doc.Frame) {
		return nil, navigatingErr(ref)
	}
	return &resolved{ref: ref, w: w, elem: b.Elem, frame: b.Doc.Frame}, nil
}

// agentResult is what the page agent's action functions return.
type agentResult struct {
	OK       bool     `json:"ok"`
	Err      string   `json:"err"`
	Detail   string   `json:"detail"`
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
	// label or drawn wrapper of a hidden native toggle, or at a part of
	// its own widget lying on top of it.
	Via string `json:"via"`
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

// check turns an agent failure into a registry error.
func (r *agentResult) check(ref string) error {
	if r.OK {
		return nil
	}
	if f, ok := notActionable[r.Err]; ok {
		return apitype.Errorf(apitype.NotActionable, f, ref, r.Detail)
	}
	switch r.Err {
	case "gone":
		return staleErr(ref, "the element was removed from the page")
	case "nooption":
		return apitype.Errorf(apitype.BadInput, "%s: %s", ref, r.Detail)
	}
	return fmt.Errorf("page agent: %s %s", r.Err, r.Detail)
}

// point prepares the element for pointer input and returns its centre in
// top-level viewport coordinates.
func (t *Tab) point(ctx context.Context, tg *resolved, hit, enabled bool) (x, y float64, err error) {
	r, err := t.prepare(ctx, tg, hit, enabled)
	if err != nil {
		return 0, 0, err
	}
	tg.via = r.Via
	if x, y, err = t.toTop(ctx, tg.ref, tg.frame, r.X, r.Y, hit); err != nil {
		return 0, 0, err
	}
	// Checked last, right before the caller sends input: a document on its
	// way out must not take input meant for it (nor may the next one).
	// This also keeps a second click from going out while the first one's
	// navigation (a form submit, a payment) is in flight.
	if t.navigating(tg.frame) {
		return 0, 0, navigatingErr(tg.ref)
	}
	return x, y, nil
}

// navigatingErr refuses input to a document that is being replaced.
func navigatingErr(ref string) error {
	return staleErr(ref, "its page is navigating to a new document; wait for it (`loupe wait --load`) and take a new snapshot")
}

// prepare runs the agent's actionability checks; in a subframe the
// protocol scrolls the element into view first (across processes), and
// the agent only checks. Its point is in the element's frame viewport.
func (t *Tab) prepare(ctx context.Context, tg *resolved, hit, enabled bool) (*agentResult, error) {
	scroll := true
	if tg.inSubframe(t) {
		if err := t.scrollInto(ctx, tg); err != nil {
			return nil, err
		}
		scroll = false
	}
	return t.runOn(ctx, tg, "prepare", map[string]bool{"hit": hit, "enabled": enabled, "scroll": scroll})
}

// focusFirst gives focus to a subframe element through the protocol before
// the agent works on it (a cross-site frame may not focus itself).
func (t *Tab) focusFirst(ctx context.Context, tg *resolved) error {
	if !tg.inSubframe(t) {
		return nil
	}
	return t.focusNode(ctx, tg)
}

// docErr maps the document vanishing mid-operation to STALE_REF.
func (t *Tab) docErr(ref string, err error) error {
	if errors.Is(err, ErrDocumentGone) {
		return staleErr(ref, "its document went away")
	}
	return err
}

// onElement resolves ref and runs one agent action function on its
// element (the element id is passed first); an agent failure becomes a
// registry error. Caller holds t.op.
func (t *Tab) onElement(ctx context.Context, ref, fn string, args ...any) (*resolved, *agentResult, error) {
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	r, err := t.runOn(ctx, tg, fn, args...)
	return tg, r, err
}

// runOn runs an agent action function on a resolved element.
func (t *Tab) runOn(ctx context.Context, tg *resolved, fn string, args ...any) (*agentResult, error) {
	var r agentResult
	if err := t.agentCall(ctx, tg.w, fn, &r, append([]any{tg.elem}, args...)...); err != nil {
		return nil, t.docErr(tg.ref, err)
	}
	if err := r.check(tg.ref); err != nil {
		return nil, err
	}
	return &r, nil
}

func (t *Tab) result(tg *resolved) *ActionResult {
	r := &ActionResult{Surface: t.ID, Executed: true, URL: t.URL()}
	if tg != nil {
		r.Ref = tg.ref
		if tg.via != "" {
			r.Note = "ok " + tg.via
		}
	}
	return r
}

// ClickOptions modify a click.
type ClickOptions struct {
	Button    input.Button
	Count     int   // 1 click, 2 double click
	Modifiers int64 // input.Mod* bits
}

// Click clicks the element's centre with trusted mouse input, after
// checking it is attached, visible, enabled, stable and on top.
func (t *Tab) Click(ctx context.Context, ref string, o ClickOptions) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	x, y, err := t.point(ctx, tg, true, true)
	if err != nil {
		return nil, err
	}
	if o.Count < 1 {
		o.Count = 1
	}
	if o.Button == "" {
		o.Button = "left"
	}
	landed := t.pressCheck(ctx, tg, true)
	if err := input.Click(ctx, t.sess, x, y, o.Button, o.Count, o.Modifiers); err != nil {
		var ap *input.AfterPressError
		if errors.As(err, &ap) && errors.Is(err, cdp.ErrSessionGone) {
			// The click closed its page (window.close() in a handler):
			// the page went before it could answer the release.
			r := t.result(tg)
			r.Note = "clicked; the page closed"
			return r, nil
		}
		return nil, executedErr(err)
	}
	if err := landed(); err != nil {
		return nil, err
	}
	r := t.result(tg)
	r.X, r.Y = x, y
	return r, nil
}

// executedErr marks a failure that happened while input was being sent:
// part of it may have reached the page.
func executedErr(err error) error {
	if e, ok := apitype.As(err); ok {
		return e.Executed()
	}
	return &partialError{err}
}

// partialError is a low-level failure after the page may have seen input.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// Executed reports that the action may have run.
func (e *partialError) Executed() bool { return true }

// Hover moves the mouse over the element's centre.
func (t *Tab) Hover(ctx context.Context, ref string) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	x, y, err := t.point(ctx, tg, true, false)
	if err != nil {
		return nil, err
	}
	if err := input.Move(ctx, t.sess, x, y, 0); err != nil {
		return nil, executedErr(err)
	}
	r := t.result(tg)
	r.X, r.Y = x, y
	return r, nil
}

// Focus focuses the element.
func (t *Tab) Focus(ctx context.Context, ref string) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := t.focusFirst(ctx, tg); err != nil {
		return nil, err
	}
	if _, err := t.runOn(ctx, tg, "focus"); err != nil {
		return nil, err
	}
	return t.result(tg), nil
}

// Fill replaces the content of an editable field with text: it focuses the
// field, selects everything in it and inserts the text as one input (an
// empty text deletes the selection). Listeners see trusted beforeinput and
// input events, as for a person's typing; the value is never assigned.
func (t *Tab) Fill(ctx context.Context, ref, text string) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := t.focusFirst(ctx, tg); err != nil {
		return nil, err
	}
	r, err := t.runOn(ctx, tg, "focusSelect", true)
	if err != nil {
		return nil, err
	}
	switch {
	case text != "":
		err = input.InsertText(ctx, t.sess, text)
	case !r.Empty:
		err = input.Press(ctx, t.sess, mustChord("Delete"))
	}
	if err != nil {
		return nil, executedErr(err)
	}
	return t.withValue(ctx, tg), nil
}

// Type types text key by key into the element (after focusing it, caret at
// the end) or, without a ref, into whatever has focus.
func (t *Tab) Type(ctx context.Context, ref, text string) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	var tg *resolved
	if ref != "" {
		var err error
		if tg, err = t.resolve(ctx, ref); err != nil {
			return nil, err
		}
		if err := t.focusFirst(ctx, tg); err != nil {
			return nil, err
		}
		if _, err := t.runOn(ctx, tg, "focusSelect", false); err != nil {
			return nil, err
		}
	}
	if err := input.Type(ctx, t.sess, text); err != nil {
		return nil, executedErr(err)
	}
	if tg == nil {
		return t.result(nil), nil
	}
	return t.withValue(ctx, tg), nil
}

func (t *Tab) withValue(ctx context.Context, tg *resolved) *ActionResult {
	res := t.result(tg)
	var v struct {
		OK    bool   `json:"ok"`
		Value string `json:"value"`
	}
	if err := t.agentCall(ctx, tg.w, "read", &v, tg.elem, "value"); err == nil && v.OK {
		res.Value = v.Value
	}
	return res
}

// Press presses key chords in order on the focused element.
func (t *Tab) Press(ctx context.Context, chords []input.Chord) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	for i, c := range chords {
		if err := input.Press(ctx, t.sess, c); err != nil {
			if i == 0 {
				return nil, err
			}
			return nil, executedErr(err)
		}
	}
	// As after a click: what the keys set off (a list filtering, a menu
	// opening) is on the page when the result is taken. A navigation the
	// keys started ends the wait.
	if w, err := t.world(ctx, t.rootFrame()); err == nil {
		t.afterInput(ctx, w)
	}
	return t.result(nil), nil
}

func mustChord(s string) input.Chord {
	c, err := input.ParseChord(s)
	if err != nil {
		panic(err)
	}
	return c
}

// Select chooses options of a <select> by value or visible label.
func (t *Tab) Select(ctx context.Context, ref string, values []string) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, r, err := t.onElement(ctx, ref, "selectOptions", values)
	if err != nil {
		return nil, err
	}
	res := t.result(tg)
	res.Value = r.Values
	return res, nil
}

// SetChecked checks or unchecks a checkbox, radio or switch by clicking it
// when its state differs, and verifies the new state. Already being in the
// wanted state is success without input.
func (t *Tab) SetChecked(ctx context.Context, ref string, want bool) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	st, err := t.state(ctx, tg)
	if err != nil {
		return nil, err
	}
	if st.Checked == nil {
		return nil, apitype.Errorf(apitype.NotActionable, "%s is a %s, not a checkbox, radio or switch", tg.ref, st.Role)
	}
	if cur, _ := st.Checked.(bool); cur == want {
		r := t.result(tg)
		r.Executed = false
		r.Note = "already " + checkWord(want)
		return r, nil
	}
	if !want && st.Role == "radio" {
		return nil, apitype.Errorf(apitype.NotActionable, "%s is a radio button; check another option of its group instead", tg.ref)
	}
	x, y, err := t.point(ctx, tg, true, true)
	if err != nil {
		return nil, err
	}
	landed := t.pressCheck(ctx, tg, false)
	if err := input.Click(ctx, t.sess, x, y, "left", 1, 0); err != nil {
		return nil, executedErr(err)
	}
	if err := landed(); err != nil {
		return nil, err
	}
	st, err = t.state(ctx, tg)
	if err != nil {
		return nil, executedErr(err)
	}
	if cur, _ := st.Checked.(bool); cur != want {
		return nil, apitype.Errorf(apitype.NotActionable, "clicking %s did not make it %s", tg.ref, checkWord(want)).Executed()
	}
	return t.result(tg), nil
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
func (t *Tab) Upload(ctx context.Context, ref string, paths []string) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, r, err := t.onElement(ctx, ref, "fileInput")
	if err != nil {
		return nil, err
	}
	if len(paths) > 1 && !r.Multiple {
		return nil, apitype.Errorf(apitype.BadInput, "%s takes one file, got %d", tg.ref, len(paths))
	}
	elem := tg.elem
	if r.I != 0 {
		// An upload button: its own (hidden) file input takes the files.
		elem, tg.via = r.I, r.Via
	}
	obj, err := t.objectOf(ctx, tg.w, elem)
	if err != nil {
		return nil, t.docErr(tg.ref, err)
	}
	defer t.release(tg.w, obj)
	if _, err := cdpproto.Call(ctx, tg.w.sess, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, ObjectID: obj}); err != nil {
		return nil, executedErr(err)
	}
	res := t.result(tg)
	res.Value = paths
	return res, nil
}

// ScrollOptions say how far to scroll, in CSS pixels.
type ScrollOptions struct {
	DX, DY float64
}

// Scroll scrolls the element into view or, with deltas, turns the mouse
// wheel over the element (or the middle of the viewport without a ref).
func (t *Tab) Scroll(ctx context.Context, ref string, o ScrollOptions) (*ActionResult, error) {
	t.op.Lock()
	defer t.op.Unlock()
	var (
		tg   *resolved
		x, y float64
		err  error
	)
	if ref != "" {
		if tg, err = t.resolve(ctx, ref); err != nil {
			return nil, err
		}
		if x, y, err = t.point(ctx, tg, false, false); err != nil {
			return nil, err
		}
	} else {
		w, err := t.world(ctx, t.rootFrame())
		if err != nil {
			return nil, err
		}
		var vp struct{ W, H float64 }
		if err := t.evalIn(ctx, w, "({W: innerWidth, H: innerHeight})", &vp); err != nil {
			return nil, err
		}
		x, y = vp.W/2, vp.H/2
		if t.IsFrame() {
			// The middle of the frame's own viewport, in page coordinates.
			if x, y, err = t.toTop(ctx, "", t.rootFrame(), x, y, false); err != nil {
				return nil, err
			}
		}
	}
	if o.DX != 0 || o.DY != 0 {
		if err := input.Wheel(ctx, t.sess, x, y, o.DX, o.DY); err != nil {
			return nil, executedErr(err)
		}
	}
	r := t.result(tg)
	r.X, r.Y = x, y
	return r, nil
}
