package action

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

// ElementState is an element's role and interaction state.
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

// state reads the element's state from its page agent. A custom element
// whose role or states come from its ElementInternals is read as
// Chromium's accessibility tree has it now: the agent's copy is the last
// snapshot's, and a click may have changed it since.
func state(ctx context.Context, tg *target) (*ElementState, error) {
	var s struct {
		OK        bool   `json:"ok"`
		Err       string `json:"err"`
		Internals bool   `json:"internals"`
		ElementState
	}
	for fresh := false; ; fresh = true {
		if err := tg.World.Call(ctx, "read", &s, tg.Elem, "state"); err != nil {
			return nil, capture.StaleIfGone(tg.Ref, err)
		}
		if !s.OK {
			return nil, (&agentResult{Err: s.Err}).check(tg.Ref)
		}
		if !s.Internals || fresh {
			break
		}
		if err := capture.RefreshInternals(ctx, tg.World, tg.Elem); err != nil {
			return nil, capture.StaleIfGone(tg.Ref, err)
		}
	}
	s.ElementState.Ref = tg.Ref
	return &s.ElementState, nil
}

// State reports the element's role and interaction state.
func State(ctx context.Context, t *engine.Surface, ref string) (*ElementState, error) {
	return engine.Exclusively(ctx, t, func() (*ElementState, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		return state(ctx, tg)
	})
}

// Read returns text, html or value of an element, or one attribute
// (what = "attr", arg = its name). For "attr", present is false when the
// element has no such attribute.
func Read(ctx context.Context, t *engine.Surface, ref, what, arg string) (value string, present bool, err error) {
	err = t.Exclusive(ctx, func() error {
		value, present, err = read(ctx, t, ref, what, arg)
		return err
	})
	return value, present, err
}

func read(ctx context.Context, t *engine.Surface, ref, what, arg string) (string, bool, error) {
	tg, err := resolve(ctx, t, ref)
	if err != nil {
		return "", false, err
	}
	var r struct {
		OK      bool    `json:"ok"`
		Err     string  `json:"err"`
		Value   *string `json:"value"`
		Present bool    `json:"present"`
	}
	if err := tg.World.Call(ctx, "read", &r, tg.Elem, what, arg); err != nil {
		return "", false, capture.StaleIfGone(ref, err)
	}
	if !r.OK {
		return "", false, (&agentResult{Err: r.Err}).check(tg.Ref)
	}
	if r.Value == nil {
		return "", r.Present, nil
	}
	return *r.Value, what != "attr" || r.Present, nil
}

// PageText returns the visible text of the whole page, shadow roots
// included.
func PageText(ctx context.Context, t *engine.Surface) (string, error) {
	return engine.Exclusively(ctx, t, func() (string, error) {
		w, err := t.World(ctx, t.Root())
		if err != nil {
			return "", err
		}
		var s string
		err = w.Call(ctx, "pageText", &s)
		return s, err
	})
}

// ElementBox is an element's border box in top-level viewport coordinates (CSS
// pixels), with the page's scroll offset.
type ElementBox struct {
	Ref     string  `json:"ref"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	ScrollX float64 `json:"scrollX"`
	ScrollY float64 `json:"scrollY"`
}

// Box returns the element's box without scrolling or moving anything.
func Box(ctx context.Context, t *engine.Surface, ref string) (*ElementBox, error) {
	return engine.Exclusively(ctx, t, func() (*ElementBox, error) {
		tg, err := resolve(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		var r struct {
			OK  bool   `json:"ok"`
			Err string `json:"err"`
			ElementBox
		}
		if err := tg.World.Call(ctx, "read", &r, tg.Elem, "box"); err != nil {
			return nil, capture.StaleIfGone(ref, err)
		}
		if !r.OK {
			return nil, (&agentResult{Err: r.Err}).check(tg.Ref)
		}
		r.ElementBox.Ref = tg.Ref
		// In a subframe the box is in the frame's viewport; move its origin to
		// the top level (no hit test: reading moves nothing).
		if r.ElementBox.X, r.ElementBox.Y, err = toTop(ctx, t, tg.Ref, tg.Frame, r.ElementBox.X, r.ElementBox.Y, false); err != nil {
			return nil, err
		}
		return &r.ElementBox, nil
	})
}
