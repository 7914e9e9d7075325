package record

import (
	"context"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
)

// Active are a browser's recordings: at most one running per tab, and
// each tab's last one once it has ended (so that `record stop` or
// `record status` after a limit ended it still says how and where).
type Active struct {
	mu sync.Mutex
	by map[string]*Recording // by the recorded tab's surface id
}

// ActiveIn is the browser's recordings.
func ActiveIn(b *engine.Browser) *Active {
	return b.Kept("record.active", func() any { return &Active{by: map[string]*Recording{}} }).(*Active)
}

// Start starts recording the tab t is in, unless it is being recorded.
func (a *Active) Start(ctx context.Context, t *engine.Surface, o Options) (*Recording, error) {
	page := t.PageID()
	a.mu.Lock()
	defer a.mu.Unlock()
	if r := a.by[page]; r != nil {
		if _, done := r.Result(); !done {
			return nil, apitype.Errorf(apitype.BadInput, "tab %s is being recorded already (for %s): stop that recording first", page, r.Status().Elapsed.Round(100*time.Millisecond))
		}
	}
	r, err := Start(ctx, t, o)
	if err != nil {
		return nil, err
	}
	a.by[page] = r
	return r, nil
}

// Of is the tab's running or last recording.
func (a *Active) Of(page string) (*Recording, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.by[page]
	return r, ok
}

// Running are the recordings that have not ended.
func (a *Active) Running() []*Recording {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Recording
	for _, r := range a.by {
		if _, done := r.Result(); !done {
			out = append(out, r)
		}
	}
	return out
}
