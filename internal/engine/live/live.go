// Package live shows a tab as it is, for a person watching it: the page's
// own frames, pushed as the page paints them (CDP screencast), to any
// number of viewers of one tab at once. A tab's screencast starts with its
// first viewer and stops with its last, so an unwatched tab costs nothing;
// an idle page paints nothing, so a watched idle tab costs next to
// nothing too. The frame rate is bounded: the browser sends the next
// frame only when the last one is acknowledged, and an acknowledgement
// waits out the rest of the frame interval.
package live

import (
	"context"
	"errors"
	"sync"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
)

// Frame is one picture of a tab's viewport.
type Frame struct {
	// Seq numbers the tab's frames from 1, for this screencast.
	Seq int64 `json:"seq"`
	// JPEG is the picture (base64 in JSON, as a page shows it:
	// data:image/jpeg;base64,…).
	JPEG []byte `json:"jpeg"`
	// DeviceWidth and DeviceHeight are the viewport in CSS pixels: a
	// point at (x, y) of a picture w×h wide is at (x·DeviceWidth/w,
	// y·DeviceHeight/h) in the page (after OffsetTop).
	DeviceWidth  float64 `json:"device_width"`
	DeviceHeight float64 `json:"device_height"`
	OffsetTop    float64 `json:"offset_top,omitempty"`
	PageScale    float64 `json:"page_scale,omitempty"`
	// Painted is when the browser painted it; Received when loupe had it.
	Painted  time.Time `json:"painted"`
	Received time.Time `json:"received"`
}

// Options bound a screencast. The first viewer of a tab sets them.
type Options struct {
	MaxFPS    int // frames a second at most (default 15)
	MaxWidth  int // picture size bound in pixels (default 1280×960)
	MaxHeight int
	Quality   int // JPEG quality, 1–100 (default 60)
}

func (o Options) withDefaults() Options {
	if o.MaxFPS <= 0 {
		o.MaxFPS = 15
	}
	if o.MaxWidth <= 0 {
		o.MaxWidth = 1280
	}
	if o.MaxHeight <= 0 {
		o.MaxHeight = 960
	}
	if o.Quality <= 0 || o.Quality > 100 {
		o.Quality = 60
	}
	return o
}

// casts are a browser's screencasts, by page surface id.
type casts struct {
	mu sync.Mutex
	by map[string]*cast
}

func castsOf(b *engine.Browser) *casts {
	return b.Kept("live", func() any { return &casts{by: map[string]*cast{}} }).(*casts)
}

// cast is one tab's screencast and its viewers.
type cast struct {
	page    *engine.Surface
	opts    Options
	viewers map[chan Frame]struct{}
	last    *Frame
	stop    context.CancelFunc
	done    chan struct{}
}

// Watch starts watching a tab (its page, for a frame surface): frames
// arrive on the channel, the newest one only when the watcher falls
// behind, until ctx ends or the tab goes (the channel is closed). A new
// viewer of a tab already watched gets its latest frame at once.
func Watch(ctx context.Context, b *engine.Browser, t *engine.Surface, o Options) (<-chan Frame, error) {
	p, err := b.Surface(ctx, t.PageID())
	if err != nil {
		return nil, err
	}
	cs := castsOf(b)
	ch := make(chan Frame, 1)
	cs.mu.Lock()
	c := cs.by[p.ID]
	if c == nil {
		c = &cast{page: p, opts: o.withDefaults(), viewers: map[chan Frame]struct{}{}, done: make(chan struct{})}
		if err := c.start(ctx, cs); err != nil {
			cs.mu.Unlock()
			return nil, err
		}
		cs.by[p.ID] = c
	}
	c.viewers[ch] = struct{}{}
	if c.last != nil {
		ch <- *c.last
	}
	cs.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
		case <-c.done:
		}
		cs.leave(c, ch)
	}()
	return ch, nil
}

// leave takes a viewer off its cast; the last one's going stops it.
func (cs *casts) leave(c *cast, ch chan Frame) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if _, ok := c.viewers[ch]; !ok {
		return
	}
	delete(c.viewers, ch)
	close(ch)
	if len(c.viewers) == 0 && cs.by[c.page.ID] == c {
		delete(cs.by, c.page.ID)
		c.stop()
	}
}

// Watching is how many viewers a tab has.
func Watching(b *engine.Browser, page string) int {
	cs := castsOf(b)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c := cs.by[page]; c != nil {
		return len(c.viewers)
	}
	return 0
}

// start begins the tab's screencast and the goroutine that fans its
// frames out. Caller holds cs.mu.
func (c *cast) start(ctx context.Context, cs *casts) error {
	s := c.page.Session()
	q := int64(c.opts.Quality)
	frames, cancel := s.Listen(page.ScreencastFrame.Method)
	if _, err := cdpproto.Call(ctx, s, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: int64(c.opts.MaxWidth), MaxHeight: int64(c.opts.MaxHeight), EveryNthFrame: 1,
		// One frame in flight: the next waits for the ack, which the
		// rate bound holds back.
		MaxFramesInFlight: 1,
	}); err != nil {
		cancel()
		return err
	}
	bg, stop := context.WithCancel(context.Background())
	c.stop = stop
	b := c.page.Browser()
	b.Go(func(bctx context.Context) {
		defer close(c.done)
		defer cancel()
		c.run(bg, bctx, cs, frames)
		// Stopping is best effort: a tab that went has no screencast.
		sctx, scancel := context.WithTimeout(bctx, 2*time.Second)
		defer scancel()
		_, _ = cdpproto.Call(sctx, s, page.StopScreencast, cdpproto.Empty{})
	})
	return nil
}

// run hands each frame to the viewers and acknowledges it no sooner than
// a frame interval after the last acknowledgement (the rate bound).
func (c *cast) run(ctx, bctx context.Context, cs *casts, frames <-chan cdp.Event) {
	interval := time.Second / time.Duration(c.opts.MaxFPS)
	var lastAck time.Time
	var seq int64
	for {
		var ev cdp.Event
		var ok bool
		select {
		case <-ctx.Done():
			return
		case <-bctx.Done():
			return
		case <-c.page.Closed():
			cs.endAll(c)
			return
		case ev, ok = <-frames:
			if !ok {
				cs.endAll(c)
				return
			}
		}
		var f page.EventScreencastFrame
		if err := jsonv2.Unmarshal(ev.Params, &f); err != nil {
			continue
		}
		seq++
		fr := Frame{Seq: seq, JPEG: f.Data, Received: time.Now()}
		if m := f.Metadata; m != nil {
			fr.DeviceWidth, fr.DeviceHeight, fr.OffsetTop, fr.PageScale = m.DeviceWidth, m.DeviceHeight, m.OffsetTop, m.PageScaleFactor
			if m.Timestamp > 0 {
				fr.Painted = time.UnixMicro(int64(float64(m.Timestamp) * 1e6))
			}
		}
		cs.publish(c, fr)
		// The rate bound: the next frame comes after this ack.
		if wait := interval - time.Since(lastAck); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		lastAck = time.Now()
		if _, err := cdpproto.Call(ctx, c.page.Session(), page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: f.SessionID}); err != nil && !errors.Is(err, context.Canceled) {
			cs.endAll(c)
			return
		}
	}
}

// publish gives a frame to every viewer, replacing one it has not taken.
func (cs *casts) publish(c *cast, f Frame) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.last = &f
	for ch := range c.viewers {
		select {
		case <-ch:
		default:
		}
		ch <- f
	}
}

// endAll ends every viewer of a cast whose tab went.
func (cs *casts) endAll(c *cast) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for ch := range c.viewers {
		delete(c.viewers, ch)
		close(ch)
	}
	if cs.by[c.page.ID] == c {
		delete(cs.by, c.page.ID)
	}
}
