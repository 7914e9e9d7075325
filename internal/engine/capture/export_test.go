package capture

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// The internals the tests of locators and captures look at.
var (
	FrameTimeout    = frameTimeout
	LocatorRoles    = locatorRoles
	StepSpec        = stepSpec
	CaptureAll      = captureAll
	SurfaceComplete = surfaceComplete
	BindRefs        = bindRefs
	WalkBudget      = walkBudget
	// AssignLocators computes every locator afresh (no kept answers).
	AssignLocators = func(ctx context.Context, t *engine.Surface, caps []*frameCapture) { assignLocators(ctx, t, caps, nil) }
	Locate         = locate
	LocateOne      = locateOne
	SimilarRefs    = similarRefs
	WithSimilar    = withSimilar
	Merge          = merge
	InTreeOrder    = inTreeOrder
)

type (
	LocMatch       = locMatch
	FrameCapture   = frameCapture
	FrameStepError = frameStepError
	QueryReply     = queryReply
)

func (m locMatch) Frame() string       { return m.frame }
func (m locMatch) World() *world.World { return m.w }
func (m locMatch) Elem() int64         { return m.elem }
func (m locMatch) Role() string        { return m.role }

func (e *frameStepError) Matches() []locMatch { return e.matches }

// MarkPartial makes a capture count as partial (a scoped or viewport one).
func (c *frameCapture) MarkPartial() { c.partial = true }

// NewFrameCapture is a frame's capture as captureFrames makes it.
func NewFrameCapture(id, parent string, page *snapshot.Page) *frameCapture {
	return &frameCapture{id: id, parent: parent, page: page}
}

// InternalsTracked counts the custom elements whose internals the surface
// asks Chromium about before each snapshot, over all frames.
func InternalsTracked(ctx context.Context, t *engine.Surface) (int, error) {
	return engine.Exclusively(ctx, t, func() (int, error) {
		in := internalsSlot.Get(t)
		if in == nil {
			return 0, nil
		}
		in.mu.Lock()
		defer in.mu.Unlock()
		n := 0
		for _, f := range in.frames {
			n += len(f.elems)
		}
		return n, nil
	})
}

// AgentWalk has the agent of the surface's top document walk it with these
// options, as a snapshot does: custom elements' internals read from
// Chromium's accessibility tree included, nothing kept.
func AgentWalk(ctx context.Context, t *engine.Surface, opts map[string]any) (*snapshot.Page, *world.World, error) {
	var (
		p *snapshot.Page
		w *world.World
	)
	err := t.Exclusive(ctx, func() (err error) {
		p, _, w, err = capture(ctx, t, t.Root(), opts, nil, internalsOf(t))
		return err
	})
	return p, w, err
}
