package capture

import (
	"context"
	"errors"
	"fmt"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Element is a ref resolved to its element in its frame's current
// document.
type Element struct {
	Ref   string       // the ref, normalised ("e12")
	Frame string       // the frame whose document holds the element
	World *world.World // the agent's world in that document
	Elem  int64        // the agent's element id, valid in World
}

// resolveRef finds the element a ref names, in the surface's ref table. It
// never guesses: a ref from an earlier document, or whose frame is gone,
// is STALE_REF; a ref of another surface is REF_WRONG_SURFACE (naming it);
// a ref never issued is REF_NOT_FOUND. With a STALE_REF whose element is
// known, last is the binding the ref had: its locator may find the
// element's successor (Resolve looks, and names it in the error). Caller
// holds t.Lock.
func resolveRef(t *engine.Surface, ref string) (el *Element, last *snapshot.Binding, err error) {
	ref, err = locator.NormalizeRef(ref)
	if err != nil {
		return nil, nil, apitype.Errorf(apitype.BadInput, "%v", err)
	}
	if t.IsCrashed() {
		return nil, nil, fmt.Errorf("%s: %w", ref, engine.ErrTabCrashed)
	}
	refs := t.Refs()
	b, ok := refs.Lookup(ref)
	if !ok {
		if t.RefBeforeThisBrowser(ref) {
			return nil, nil, Stale(ref, "it was issued in a browser of this session that has since gone").
				Fix("take a snapshot ({1}) and use its refs", apitype.Step{Op: "snapshot"})
		}
		if d, ok := refs.Dropped(ref); ok {
			return nil, d, Stale(ref, "it was taken from a page that has since changed or navigated")
		}
		if owner, elsewhere := refs.OwnerOf(ref); elsewhere && owner != "" {
			e := apitype.Errorf(apitype.RefWrongSurface, "%s belongs to surface %s, not %s", ref, owner, t.ID).
				Fix("switch to it ({1}) or take a snapshot of "+t.ID+" ({2}) and use its refs",
					apitype.Step{Op: "switch", Args: map[string]string{"surface_id": owner}}, apitype.Step{Op: "snapshot"})
			e.SurfaceID = owner
			return nil, nil, e
		}
		if refs.Issued(ref) {
			return nil, nil, Stale(ref, "it was taken from a page that has since changed or navigated")
		}
		return nil, nil, apitype.Errorf(apitype.RefNotFound, "%s was never issued on surface %s", ref, t.ID)
	}
	if _, ok := t.Frame(b.Doc.Frame); !ok {
		return nil, b, Stale(ref, "its frame is gone")
	}
	w := t.CurrentWorld(b.Doc.Frame)
	if w == nil || w.ContextID() != b.Doc.World {
		return nil, b, Stale(ref, "its document has navigated since the snapshot")
	}
	el = &Element{Ref: ref, World: w, Elem: b.Elem, Frame: b.Doc.Frame}
	if err := CheckNavigation(t, el); err != nil {
		return nil, nil, err
	}
	return el, nil, nil
}

// CheckNavigation refuses input to el's document while it is being
// replaced: when its frame, or a frame above it, is navigating to a new
// document, input sent now could land in the next one (STALE_REF, not
// executed). Actions check it last, right before they send input.
func CheckNavigation(t *engine.Surface, el *Element) error {
	if t.Navigating(el.Frame) {
		return Stale(el.Ref, "its page is navigating to a new document").
			Fix("wait for it ({1}) and take a new snapshot ({2})",
				apitype.Step{Op: "wait", Args: map[string]string{"load": "true"}}, apitype.Step{Op: "snapshot"})
	}
	return nil
}

// Stale is the STALE_REF error about ref, saying why.
func Stale(ref, why string) *apitype.Error {
	return apitype.Errorf(apitype.StaleRef, "%s is stale: %s", ref, why)
}

// StaleIfGone maps ref's document vanishing mid-operation
// (engine.ErrDocumentGone) to STALE_REF; any other error is returned as it
// is.
func StaleIfGone(ref string, err error) error {
	if errors.Is(err, engine.ErrDocumentGone) {
		return Stale(ref, "its document went away")
	}
	return err
}

// DocumentToken names the document the surface shows now: its frame's
// loader id, which a navigation to a new document changes. A write that
// carries the token of the snapshot it was planned on is refused when the
// surface has moved on to another document since ("" when unknown).
func DocumentToken(t *engine.Surface) string {
	f, ok := t.Frame(t.Root())
	if !ok || f.Document == "" {
		return ""
	}
	return "d-" + f.Document
}

// Secret reports whether a target is a field whose text is a secret (a
// password input), so that what is typed into it is kept nowhere: not in
// the ledger, not in a reply. An element that cannot be resolved is not
// reported as one (the write itself will say what is wrong).
func Secret(ctx context.Context, t *engine.Surface, target string) bool {
	el, err := engine.Exclusively(ctx, t, func() (*Element, error) { return Resolve(ctx, t, target) })
	if err != nil {
		return false
	}
	var secret bool
	return el.World.Call(ctx, "secret", &secret, el.Elem) == nil && secret
}
