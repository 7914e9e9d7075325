package action

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
)

// Timings are a document's navigation timing and long tasks, as its page
// reports them (see timings in the page agent). Timing is nil for a
// document with no navigation entry (about:blank).
type Timings struct {
	Timing *struct {
		TTFB     float64 `json:"ttfb"`
		DCL      float64 `json:"dcl"`
		Load     float64 `json:"load"`
		Transfer float64 `json:"transfer"`
	} `json:"timing"`
	Count   int     `json:"count"`
	Total   float64 `json:"total"`
	Longest float64 `json:"longest"`
}

// PageTimings reads the tab's top document's timings.
func PageTimings(ctx context.Context, t *engine.Surface) (*Timings, error) {
	return engine.Exclusively(ctx, t, func() (*Timings, error) {
		w, err := t.World(ctx, t.Root())
		if err != nil {
			return nil, err
		}
		var r Timings
		if err := w.Call(ctx, "timings", &r); err != nil {
			return nil, err
		}
		return &r, nil
	})
}
