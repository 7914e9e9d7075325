// Package record makes a WebM video of one tab for a person to watch
// later: the page's own pictures (CDP screencast, through package live, so
// a recording and the dashboard's live view of the same tab share one
// screencast instead of stopping each other's), encoded by an ffmpeg child
// process as VP8 at a constant 15 frames a second, without audio.
//
// A page paints only when something changes, so screencast pictures
// arrive unevenly or not at all; the video is made constant-rate by
// repeating the last picture until the next one's paint time (the way
// Playwright's Chromium video recorder does it). A timer fills the gaps
// of an idle page a few times a second, so the encoder works steadily
// rather than in one burst at the end, and the byte limit is checked
// while the file grows.
//
// A recording ends when it is stopped or cut (a take-over), at its
// duration or size limit, or when its tab closes or crashes. Only a
// complete file that decodes (ffprobe reports a video stream and a
// duration) is published into the files directory, under a name that was
// free (never overwriting), with mode 0600; a recording cut short is kept
// only if it decodes, and its Result says why it ended and whether it was
// kept.
//
// Known limits: when another viewer (the dashboard) was watching the tab
// first, the screencast keeps that viewer's rate and size, so the video
// repeats pictures more often; the video's size is the tab's viewport at
// the start (fitted into 1280×960), and a later resize is scaled and
// padded into it.
package record

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/live"
)

// Limits and defaults of Options.
const (
	DefaultMax      = 20 * time.Second
	MaxDuration     = 90 * time.Second
	DefaultMaxBytes = 64 << 20
	MaxBytesLimit   = 64 << 20
)

// Ended values other than a Cut's own reason and "limit: …".
const (
	EndStopped   = "stopped"
	EndTabClosed = "tab closed"
	EndCrashed   = "tab crashed"
	EndEncoder   = "encoder failed"
)

// fps is the video's constant frame rate, and the most pictures a second
// the screencast sends. The browser's cost is per picture: measured on a
// page that moves all the time (BenchmarkRecordCPU), a screencast at 25 a
// second took the browser 470 ms of CPU a second, at 15 a second 280,
// and the encoder's cost falls with the video's rate too. 15 is smooth
// enough to follow a page, and the dashboard's live view (package live)
// uses the same rate, so the two share one screencast as they are.
const fps = 15

// padInterval is how often the timer repeats the last picture of a page
// that paints nothing (and checks the file's size): often enough that the
// encoder works steadily and the byte limit holds within a fraction of a
// second, rarely enough that an idle recording costs next to nothing.
const padInterval = 200 * time.Millisecond

// lateness is how far behind now the timer pads: a picture painted up to
// this long before it reaches loupe still lands at its own time.
const lateness = 200 * time.Millisecond

// finishTimeout bounds ffmpeg's flush, ffprobe's check and the publishing
// of the file after a recording ends: well under a second alone, seconds
// on a loaded machine.
const finishTimeout = 30 * time.Second

// Options bound a recording. The zero value records 20 s at most.
type Options struct {
	// Max is the longest the recording runs (default 20 s, at most 90 s).
	Max time.Duration
	// MaxBytes bounds the file (default and at most 64 MiB).
	MaxBytes int64
	// Dir is the directory the finished file is published into (the
	// session's files directory); it is made if missing.
	Dir string
	// Name is the file's name in Dir ("" = recording-<time>.webm). A
	// name already taken gets " (1)", " (2)", … as downloads do.
	Name string
	// FFmpeg and FFprobe are the programs' paths ("" = look up in PATH).
	FFmpeg, FFprobe string
}

// Status is a recording as it goes.
type Status struct {
	SurfaceID string // the recorded tab
	Running   bool
	Elapsed   time.Duration
	Frames    int   // video frames encoded so far
	Painted   int   // pictures the page sent so far
	Bytes     int64 // size of the file so far
	Max       time.Duration
	MaxBytes  int64
	Ended     string // why it ended, once it has
}

// Result is how a recording ended and what it left.
type Result struct {
	SurfaceID string
	// Path is the published file ("" when it was not kept).
	Path     string
	Bytes    int64
	Duration time.Duration
	Frames   int // video frames
	Painted  int // pictures the page sent
	// Ended says why it ended: "stopped", a Cut's reason ("taken
	// over"), "limit: 20s", "limit: 64 MiB", "tab closed", "tab
	// crashed", "encoder failed: …".
	Ended string
	// Kept is true when the file was published; Why says why it was or
	// was not.
	Kept bool
	Why  string
}

// Recording is one tab's recording, from Start until it ends. Its methods
// are safe to call from any goroutine.
type Recording struct {
	surface  string
	opts     Options
	started  time.Time
	cut      chan struct{} // closed by the first end request
	done     chan struct{} // closed once res is set
	finished func()        // ends the recording's watch of the tab

	mu sync.Mutex // guards the fields below
	// reason is the first end request's reason, cutAt its time (set
	// before cut closes).
	reason  string
	cutAt   time.Time
	frames  int
	painted int
	bytes   int64
	res     *Result
	// encCPU is ffmpeg's CPU time, for the benchmarks (set before done
	// closes).
	encCPU time.Duration
}

// Start begins recording the tab t is in (its page, for a frame surface)
// and returns once the screencast and ffmpeg run. The recording goes on by
// itself until it is stopped or cut or reaches a limit, or its tab ends;
// it owns one goroutine, which ends with it. ctx bounds the start only.
// Without ffmpeg it is TRANSPORT_UNSUPPORTED, naming Debian's package.
func Start(ctx context.Context, t *engine.Surface, o Options) (*Recording, error) {
	o, err := o.check()
	if err != nil {
		return nil, err
	}
	ffmpeg, ffprobe, err := tools(o)
	if err != nil {
		return nil, err
	}
	o.FFmpeg, o.FFprobe = ffmpeg, ffprobe
	b := t.Browser()
	p, err := b.Surface(ctx, t.PageID())
	if err != nil {
		return nil, err
	}
	if p.IsCrashed() {
		return nil, apitype.Errorf(apitype.TabCrashed, "tab %s has crashed: there is nothing to record", p.ID)
	}
	w, h, err := videoSize(ctx, p)
	if err != nil {
		return nil, err
	}
	st, err := newStage(o.Dir, o.Name)
	if err != nil {
		return nil, err
	}
	enc, err := startEncoder(o.FFmpeg, st.file, w, h, o.MaxBytes)
	if err != nil {
		st.remove()
		return nil, apitype.Wrap(apitype.TransportUnsupported, err, "ffmpeg (%s) did not start: %v", o.FFmpeg, err).
			Fix("reinstall Debian's package ffmpeg (apt-get install ffmpeg)")
	}
	// The watch lives as long as the recording, not as long as ctx; ctx
	// bounds only its start.
	wctx, wcancel := context.WithCancel(context.Background())
	unbind := context.AfterFunc(ctx, wcancel)
	frames, err := live.Watch(wctx, b, p, live.Options{MaxFPS: fps, Quality: 70})
	if !unbind() && err == nil {
		err = fmt.Errorf("starting the screencast: %w", ctx.Err())
	}
	if err != nil {
		wcancel()
		enc.kill()
		st.remove()
		return nil, fmt.Errorf("record %s: %w", p.ID, err)
	}
	r := &Recording{
		surface: p.ID, opts: o, started: time.Now(),
		cut: make(chan struct{}), done: make(chan struct{}), finished: wcancel,
	}
	go r.run(p, frames, enc, st)
	return r, nil
}

// check applies the defaults and refuses what is beyond the limits.
func (o Options) check() (Options, error) {
	switch {
	case o.Max < 0 || o.Max > MaxDuration:
		return o, apitype.Errorf(apitype.BadInput, "a recording lasts at most %v, not %v", MaxDuration, o.Max)
	case o.MaxBytes < 0 || o.MaxBytes > MaxBytesLimit:
		return o, apitype.Errorf(apitype.BadInput, "a recording is at most %s, not %s", sizeText(MaxBytesLimit), sizeText(o.MaxBytes))
	case o.Dir == "":
		return o, apitype.Errorf(apitype.Internal, "record: no files directory to publish into")
	}
	if o.Max == 0 {
		o.Max = DefaultMax
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	name, err := fileName(o.Name, time.Now())
	if err != nil {
		return o, err
	}
	o.Name = name
	return o, nil
}

// videoSize is the video's size: the tab's viewport, fitted into the
// screencast's bound (1280×960) as its pictures are, in even pixels (the
// encoder's 4:2:0 colour needs them).
func videoSize(ctx context.Context, p *engine.Surface) (w, h int, err error) {
	m, err := cdpproto.Call(ctx, p.Session(), page.GetLayoutMetrics, cdpproto.Empty{})
	if err != nil {
		return 0, 0, fmt.Errorf("record %s: reading the viewport: %w", p.ID, err)
	}
	vw, vh := 1280.0, 720.0
	if v := m.CSSVisualViewport; v != nil && v.ClientWidth >= 16 && v.ClientHeight >= 16 {
		vw, vh = v.ClientWidth, v.ClientHeight
	}
	scale := min(1, 1280/vw, 960/vh)
	even := func(f float64) int { return max(16, int(f*scale)&^1) }
	return even(vw), even(vh), nil
}

// Stop ends the recording now (Ended "stopped") and returns its Result
// once the file is checked and published. A recording that has already
// ended returns its Result as it is. When ctx ends first, the recording
// still finishes in the background (see Done).
func (r *Recording) Stop(ctx context.Context) (Result, error) {
	return r.Cut(ctx, EndStopped)
}

// Cut ends the recording for a reason ("taken over"), which its Result
// gives as Ended; otherwise it is Stop (an empty reason is "stopped"). The first end wins: a recording
// that ended already keeps its own reason.
func (r *Recording) Cut(ctx context.Context, reason string) (Result, error) {
	r.end(reason)
	select {
	case <-r.done:
		res, _ := r.Result()
		return res, nil
	case <-ctx.Done():
		return Result{}, fmt.Errorf("record %s: waiting for the file to be finished: %w", r.surface, ctx.Err())
	}
}

// end asks the recording's goroutine to end; the first reason wins.
// The video ends at the time of the request, however far behind the
// encoder is.
func (r *Recording) end(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reason == "" {
		reason = EndStopped
	}
	if r.reason == "" {
		r.reason, r.cutAt = reason, time.Now()
		close(r.cut)
	}
}

// Done is closed once the recording has ended and its file is finished
// (published or dropped): by Stop or Cut, a limit, or its tab.
func (r *Recording) Done() <-chan struct{} { return r.done }

// Result is the recording's outcome, once it is done.
func (r *Recording) Result() (Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res == nil {
		return Result{}, false
	}
	return *r.res, true
}

// Status is the recording as it goes (or as it ended).
func (r *Recording) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Status{
		SurfaceID: r.surface, Running: r.res == nil, Elapsed: min(time.Since(r.started), r.opts.Max),
		Frames: r.frames, Painted: r.painted, Bytes: r.bytes, Max: r.opts.Max, MaxBytes: r.opts.MaxBytes,
	}
	if r.res != nil {
		s.Elapsed, s.Bytes, s.Ended = r.res.Duration, r.res.Bytes, r.res.Ended
	}
	return s
}

// SurfaceID is the recorded tab's surface id.
func (r *Recording) SurfaceID() string { return r.surface }

// limitText is the Ended text of a limit.
func limitText(v any) string { return fmt.Sprint("limit: ", v) }

// sizeText writes a byte count the way its limit is given: 64 MiB, 200 KiB.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errStall means ffmpeg took no input for a long time.
var errStall = errors.New("ffmpeg took no input for " + writeTimeout.String())
