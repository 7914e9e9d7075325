package engine

import (
	"context"
	"strings"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// ElementState is what `loupe state` reports.
type ElementState struct {
	Ref        string `json:"ref"`
	Role       string `json:"role"`
	Tag        string `json:"tag"`
	Visible    bool   `json:"visible"`
	Enabled    bool   `json:"enabled"`
	Editable   bool   `json:"editable"`
	Checked    any    `json:"checked"` // true, false, "mixed" or null
	Focused    bool   `json:"focused"`
	InViewport bool   `json:"inViewport"`
}

func (t *Tab) state(ctx context.Context, tg *resolved) (*ElementState, error) {
	var s struct {
		OK  bool   `json:"ok"`
		Err string `json:"err"`
		ElementState
	}
	if err := t.agentCall(ctx, tg.w, "read", &s, tg.elem, "state"); err != nil {
		return nil, t.docErr(tg.ref, err)
	}
	if !s.OK {
		return nil, (&agentResult{Err: s.Err}).check(tg.ref)
	}
	s.ElementState.Ref = tg.ref
	return &s.ElementState, nil
}

// State reports the element's role and interaction state.
func (t *Tab) State(ctx context.Context, ref string) (*ElementState, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	return t.state(ctx, tg)
}

// Read returns text, html or value of an element, or one attribute
// (what = "attr", arg = its name). For "attr", present is false when the
// element has no such attribute.
func (t *Tab) Read(ctx context.Context, ref, what, arg string) (value string, present bool, err error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return "", false, err
	}
	var r struct {
		OK      bool    `json:"ok"`
		Err     string  `json:"err"`
		Value   *string `json:"value"`
		Present bool    `json:"present"`
	}
	if err := t.agentCall(ctx, tg.w, "read", &r, tg.elem, what, arg); err != nil {
		return "", false, t.docErr(ref, err)
	}
	if !r.OK {
		return "", false, (&agentResult{Err: r.Err}).check(tg.ref)
	}
	if r.Value == nil {
		return "", r.Present, nil
	}
	return *r.Value, what != "attr" || r.Present, nil
}

// PageText returns the visible text of the whole page, shadow roots
// included.
func (t *Tab) PageText(ctx context.Context) (string, error) {
	t.op.Lock()
	defer t.op.Unlock()
	w, err := t.world(ctx, t.rootFrame())
	if err != nil {
		return "", err
	}
	var s string
	err = t.agentCall(ctx, w, "pageText", &s)
	return s, err
}

// Box is an element's border box in top-level viewport coordinates (CSS
// pixels), with the page's scroll offset.
type Box struct {
	Ref     string  `json:"ref"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	ScrollX float64 `json:"scrollX"`
	ScrollY float64 `json:"scrollY"`
}

// Box returns the element's box without scrolling or moving anything.
func (t *Tab) Box(ctx context.Context, ref string) (*Box, error) {
	t.op.Lock()
	defer t.op.Unlock()
	tg, err := t.resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	var r struct {
		OK  bool   `json:"ok"`
		Err string `json:"err"`
		Box
	}
	if err := t.agentCall(ctx, tg.w, "read", &r, tg.elem, "box"); err != nil {
		return nil, t.docErr(ref, err)
	}
	if !r.OK {
		return nil, (&agentResult{Err: r.Err}).check(tg.ref)
	}
	r.Box.Ref = tg.ref
	// In a subframe the box is in the frame's viewport; move its origin to
	// the top level (no hit test: reading moves nothing).
	if r.Box.X, r.Box.Y, err = t.toTop(ctx, tg.ref, tg.frame, r.Box.X, r.Box.Y, false); err != nil {
		return nil, err
	}
	return &r.Box, nil
}

// Eval evaluates a JavaScript expression in the page's own world (it sees
// the page's globals) and returns its JSON value; a promise is awaited.
func (t *Tab) Eval(ctx context.Context, expr string) (jsonv2.Value, error) {
	t.op.Lock()
	defer t.op.Unlock()
	sess, params := t.sess, runtime.EvaluateParams{
		Expression: expr, ReturnByValue: ptr(true), AwaitPromise: ptr(true), UserGesture: ptr(true),
		ReplMode: ptr(true),
	}
	if t.IsFrame() {
		// A frame's page world, in the session that hosts the frame now.
		t.mu.Lock()
		m, ok := t.mainCtx[t.root]
		f := t.frames[t.root]
		t.mu.Unlock()
		switch {
		case f == nil:
			return nil, apitype.Errorf(apitype.SurfaceClosed, "frame surface %s has gone", t.ID)
		case !ok || f.sess != m.sess:
			e := apitype.Errorf(apitype.EvalFailed, "frame surface %s has no document to evaluate in yet", t.ID)
			e.Hint = "it is loading; wait for it (`loupe wait --load`) and try again"
			return nil, e
		}
		sess, params.ContextID = m.sess, runtime.ExecutionContextID(m.id)
	}
	res, err := cdpproto.Call(ctx, sess, runtime.Evaluate, params)
	if err != nil {
		return nil, err
	}
	if ex := res.ExceptionDetails; ex != nil {
		msg := ex.Text
		if ex.Exception != nil && ex.Exception.Description != "" {
			msg = ex.Exception.Description
		}
		return nil, apitype.Errorf(apitype.EvalFailed, "%s", strings.TrimSpace(msg)).Executed()
	}
	r := res.Result
	switch {
	case r == nil || r.Type == "undefined":
		return jsonv2.Value("null"), nil
	case r.UnserializableValue != "":
		// NaN, Infinity, -0, bigints: not JSON; give them as strings.
		return jsonv2.Marshal(string(r.UnserializableValue))
	case len(r.Value) == 0:
		if r.Description != "" {
			return jsonv2.Marshal(r.Description)
		}
		return jsonv2.Value("null"), nil
	}
	return r.Value, nil
}
