package capture

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Locators name elements across a surface: locate resolves one on every
// frame of the surface, for targets given as a locator instead of a ref
// (Resolve) and for stale refs that look for their element in the new
// document (similarRefs). The locators snapshots give refs are chosen in
// locators.go.

// Resolve finds the element a target names: a ref (e12, @e12) or a locator
// (role=button[name="Save"], testid=…, css=…, #id, with >> into frames).
// It never guesses: a ref from an earlier document, or whose frame is gone,
// is STALE_REF (naming the element its locator finds now, if exactly one,
// as a similar ref; it is not acted on); a ref never issued is
// REF_NOT_FOUND; a locator that matches nothing is REF_NOT_FOUND and one
// that matches several is AMBIGUOUS with their refs. Caller holds t.Lock.
func Resolve(ctx context.Context, t *engine.Surface, target string) (*Element, error) {
	ref, err := locator.NormalizeRef(target)
	if err != nil {
		loc, lerr := locator.ParseLocator(target)
		if lerr != nil {
			return nil, apitype.Errorf(apitype.BadInput, "%q is neither a ref (e12) nor a locator: %v", target, lerr)
		}
		b, err := locateOne(ctx, t, loc)
		if err != nil {
			return nil, err
		}
		ref = b.Ref
	}
	el, last, err := resolveRef(t, ref)
	if err != nil {
		return nil, withSimilar(ctx, t, err, last)
	}
	return el, nil
}

// locMatch is an element a locator matched.
type locMatch struct {
	frame string
	w     *world.World
	elem  int64
	// role and name as a snapshot would show them, for binding a ref.
	role, name string
}

// similarTimeout bounds the search a STALE_REF error makes for the
// element's successor.
const similarTimeout = 3 * time.Second

// surfaceFrames lists the tab's frames, parents before children.
func surfaceFrames(t *engine.Surface) []string {
	var out []string
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		out = append(out, id)
		if depth >= 64 {
			return
		}
		kids := t.ChildFrames(id)
		sort.Strings(kids)
		for _, c := range kids {
			walk(c, depth+1)
		}
	}
	walk(t.Root(), 0)
	return out
}

// stepSpec is a step as the agent's query takes it.
func stepSpec(s locator.Step) map[string]any {
	switch s.Kind {
	case locator.StepRole:
		return map[string]any{"k": "role", "r": s.Role, "n": s.Name, "hn": s.HasName}
	case locator.StepTestID:
		return map[string]any{"k": "testid", "v": s.Value}
	}
	return map[string]any{"k": "css", "v": s.Value}
}

type queryReply struct {
	OK     bool   `json:"ok"`
	Err    string `json:"err"`
	Detail string `json:"detail"`
	M      []struct {
		I int64  `json:"i"`
		R string `json:"r"`
		N string `json:"n"`
	} `json:"m"`
}

// queryFrame finds the elements one step matches in a frame's current
// document.
func queryFrame(ctx context.Context, t *engine.Surface, frame string, st locator.Step) ([]locMatch, error) {
	w, err := t.World(ctx, frame)
	if err != nil {
		return nil, err
	}
	var r queryReply
	if err := w.Call(ctx, "query", &r, stepSpec(st)); err != nil {
		return nil, err
	}
	if !r.OK {
		if r.Err == "badcss" {
			return nil, apitype.Errorf(apitype.BadInput, "%s: not a valid selector: %s", st, r.Detail)
		}
		return nil, fmt.Errorf("page agent: %s %s", r.Err, r.Detail)
	}
	out := make([]locMatch, len(r.M))
	for i, m := range r.M {
		out[i] = locMatch{frame: frame, w: w, elem: m.I, role: m.R, name: m.N}
	}
	return out, nil
}

// queryFrames runs one step in several frames at once and returns the
// matches in frame order. A subframe that went away meanwhile is skipped;
// any other failure fails the search (a frame that cannot be searched
// could hold a match: the answer would be a guess).
func queryFrames(ctx context.Context, t *engine.Surface, frames []string, st locator.Step) ([]locMatch, error) {
	res := make([][]locMatch, len(frames))
	errs := make([]error, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fctx := ctx
			if f != t.Root() {
				var cancel context.CancelFunc
				fctx, cancel = context.WithTimeout(ctx, frameTimeout)
				defer cancel()
			}
			res[i], errs[i] = queryFrame(fctx, t, f, st)
		}()
	}
	wg.Wait()
	var out []locMatch
	for i, f := range frames {
		if err := errs[i]; err != nil {
			if errors.Is(err, engine.ErrDocumentGone) && f != t.Root() {
				continue
			}
			if _, ok := apitype.As(err); ok {
				return nil, err
			}
			return nil, fmt.Errorf("searching frame %s: %w", f, err)
		}
		out = append(out, res[i]...)
	}
	return out, nil
}

// frameStepError is a step before ">>" that did not select one frame: it
// matched several elements (matches holds them), or one element that is
// not a loaded iframe.
type frameStepError struct {
	step    locator.Step
	matches []locMatch
}

func (e *frameStepError) Error() string {
	if len(e.matches) > 1 {
		return fmt.Sprintf("%s matches %d elements; before >> it must match exactly one iframe", e.step, len(e.matches))
	}
	return fmt.Sprintf("%s matches a %s, not an iframe with a loaded frame", e.step, e.matches[0].role)
}

// locate finds the elements a locator matches on the whole surface: the
// first step in every frame (concurrently), each later step in the frame
// of the one iframe the step before matched. A step before ">>" that
// matches nothing gives no matches; one that matches several elements, or
// an element that is not an iframe, gives a *frameStepError. Caller holds
// t.Lock.
func locate(ctx context.Context, t *engine.Surface, loc locator.Locator) ([]locMatch, error) {
	if loc.IsZero() {
		return nil, apitype.Errorf(apitype.BadInput, "empty locator")
	}
	frames := surfaceFrames(t)
	for i, st := range loc.Steps {
		ms, err := queryFrames(ctx, t, frames, st)
		if err != nil {
			return nil, err
		}
		if i == len(loc.Steps)-1 {
			return ms, nil
		}
		if len(ms) == 0 {
			return nil, nil
		}
		if len(ms) > 1 {
			return ms, &frameStepError{step: st, matches: ms}
		}
		child, err := frameOf(ctx, t, ms[0])
		if err != nil {
			return nil, err
		}
		if child == "" {
			return nil, &frameStepError{step: st, matches: ms}
		}
		frames = []string{child}
	}
	return nil, nil
}

// frameOf returns the frame an <iframe> element holds, or "" when the
// element holds none.
func frameOf(ctx context.Context, t *engine.Surface, m locMatch) (string, error) {
	for _, c := range t.ChildFrames(m.frame) {
		owner, err := t.FrameOwner(ctx, c, m.frame)
		if err != nil {
			if errors.Is(err, engine.ErrDocumentGone) {
				continue
			}
			return "", err
		}
		if owner == m.elem {
			if w := t.CurrentWorld(m.frame); w == nil || w.ContextID() != m.w.ContextID() {
				return "", nil // the document changed under us
			}
			return c, nil
		}
	}
	return "", nil
}

// bindMatch gives a located element a ref (its existing one, if it has
// one), so verbs can use it. Caller holds t.Lock.
func bindMatch(t *engine.Surface, m locMatch) *snapshot.Binding {
	return t.Refs().Bind(snapshot.Doc{Frame: m.frame, World: m.w.ContextID()}, m.elem, m.role, m.name)
}

// maxCandidates bounds the refs an AMBIGUOUS error lists.
const maxCandidates = 10

// locateOne resolves a locator that must match exactly one element and
// binds it: no match is REF_NOT_FOUND, several are AMBIGUOUS with the
// candidates' refs (each bound, so they can be used next). Caller holds
// t.Lock.
func locateOne(ctx context.Context, t *engine.Surface, loc locator.Locator) (*snapshot.Binding, error) {
	ms, err := locate(ctx, t, loc)
	var fe *frameStepError
	switch {
	case errors.As(err, &fe):
		if len(fe.matches) > 1 {
			return nil, ambiguous(t, loc, fe.matches, fe.Error())
		}
		return nil, apitype.Errorf(apitype.RefNotFound, "%s: %s", loc, fe.Error())
	case err != nil:
		return nil, err
	case len(ms) == 0:
		return nil, apitype.Errorf(apitype.RefNotFound, "nothing on surface %s matches %s", t.ID, loc)
	case len(ms) > 1:
		return nil, ambiguous(t, loc, ms, fmt.Sprintf("%d elements match %s", len(ms), loc))
	}
	return bindMatch(t, ms[0]), nil
}

func ambiguous(t *engine.Surface, loc locator.Locator, ms []locMatch, msg string) error {
	var refs []string
	for i, m := range ms {
		if i == maxCandidates {
			break
		}
		b := bindMatch(t, m)
		refs = append(refs, b.Ref)
	}
	if len(ms) > maxCandidates {
		msg += fmt.Sprintf(" (the first %d listed)", maxCandidates)
	}
	e := apitype.Errorf(apitype.Ambiguous, "%s", msg)
	e.Candidates = refs
	return e
}

// similarRefs looks for a stale ref's element in the current documents:
// when the binding's locator matches exactly one element, that element is
// bound and its ref returned (for STALE_REF's similar_refs). It never acts,
// and any doubt (no locator, no match, several, a frame that cannot be
// searched) gives nil. Caller holds t.Lock.
func similarRefs(ctx context.Context, t *engine.Surface, b *snapshot.Binding) []string {
	if b == nil || b.Locator == "" {
		return nil
	}
	loc, err := locator.ParseLocator(b.Locator)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, similarTimeout)
	defer cancel()
	ms, err := locate(ctx, t, loc)
	if err != nil || len(ms) != 1 {
		return nil
	}
	nb := bindMatch(t, ms[0])
	if nb.Ref == b.Ref {
		return nil
	}
	return []string{nb.Ref}
}

// withSimilar adds similar_refs to a STALE_REF error about b's ref (see
// similarRefs); any other error, or a nil binding, is returned as is.
// Caller holds t.Lock.
func withSimilar(ctx context.Context, t *engine.Surface, err error, b *snapshot.Binding) error {
	e, ok := apitype.As(err)
	if !ok || e.Code != apitype.StaleRef || b == nil {
		return err
	}
	if refs := similarRefs(ctx, t, b); len(refs) > 0 {
		e.SimilarRefs = refs
		e.Message += fmt.Sprintf("; %s now matches %s (not used: check it and retry with it)", b.Locator, strings.Join(refs, ", "))
	}
	return err
}
