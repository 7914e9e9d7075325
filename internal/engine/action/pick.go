package action

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Picked is the element a person pointed at: its ref, its snapshot line
// and its stable locator (empty when none was found), for the person to
// copy into a script or a message to an agent.
type Picked struct {
	Ref     string
	Line    string
	Locator string
	FrameID string // "" for the top document
}

// pickDepth bounds the frames a pick descends through.
const pickDepth = 8

// Pick finds the element at a point of the tab's viewport (CSS pixels from
// its top-left corner) that the tab's snapshot gave a ref: the innermost
// element there with one, or its nearest ancestor that has one. A frame at
// the point is looked into — its document answers for the point inside it,
// out-of-process frames too — and stands for itself when nothing in it has
// a ref. The refs are those of the latest snapshot (take one first: see
// the pick handler); Pick issues none.
func Pick(ctx context.Context, t *engine.Surface, x, y float64) (*Picked, error) {
	return engine.Exclusively(ctx, t, func() (*Picked, error) {
		type level struct {
			doc   snapshot.Doc
			frame string
			ids   []int64
		}
		var levels []level
		frame := t.Root()
		for range pickDepth {
			w, err := t.World(ctx, frame)
			if err != nil {
				break
			}
			var r struct {
				agentResult
				IDs   []int64 `json:"ids"`
				Frame *struct {
					ID int64   `json:"id"`
					X  float64 `json:"x"`
					Y  float64 `json:"y"`
				} `json:"frame"`
			}
			if err := w.Call(ctx, "pickAt", &r, x, y); err != nil || !r.OK {
				break
			}
			levels = append(levels, level{doc: snapshot.Doc{Frame: frame, World: w.ContextID()}, frame: frame, ids: r.IDs})
			if r.Frame == nil {
				break
			}
			child := ownedFrame(ctx, t, frame, r.Frame.ID)
			if child == "" {
				break
			}
			frame, x, y = child, r.Frame.X, r.Frame.Y
		}
		for i := len(levels) - 1; i >= 0; i-- {
			l := levels[i]
			for _, id := range l.ids {
				if b, ok := t.Refs().Find(l.doc, id); ok {
					p := &Picked{Ref: b.Ref, Line: snapshot.ElementLine(b.Role, b.Name, b.Ref), Locator: b.Locator}
					if l.frame != t.Root() {
						p.FrameID = l.frame
					}
					return p, nil
				}
			}
		}
		return nil, apitype.Errorf(apitype.RefNotFound, "nothing with a ref is at (%g, %g) of %s's viewport", x, y, t.ID).
			Fix("take a snapshot ({1}) and pick again; a point outside the page or on its bare background names nothing", apitype.Step{Op: "snapshot"})
	})
}

// ownedFrame is the child frame of parent whose <iframe> element has the
// agent id elem in parent's document, or "".
func ownedFrame(ctx context.Context, t *engine.Surface, parent string, elem int64) string {
	for _, child := range t.ChildFrames(parent) {
		if id, err := t.FrameOwner(ctx, child, parent); err == nil && id == elem {
			return child
		}
	}
	return ""
}
