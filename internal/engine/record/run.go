package record

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/live"
)

// run is the recording's goroutine: it owns the screencast's frames, the
// encoder's input and the file, until the recording ends; then it
// finishes the file, checks and publishes it, and closes done. Every step
// of the finish is bounded, so it ends by Max plus finishTimeout plus a
// few write timeouts at the latest.
func (r *Recording) run(p *engine.Surface, frames <-chan live.Frame, enc *encoder, st *stage) {
	limit := time.NewTimer(time.Until(r.started.Add(r.opts.Max)))
	defer limit.Stop()
	// The pad timer: see padInterval.
	tick := time.NewTicker(padInterval)
	defer tick.Stop()
	f := &filler{enc: enc, start: r.started, max: int(r.opts.Max * fps / time.Second)}
	crashed := p.Crashed()
	limitAt := r.started.Add(r.opts.Max)
	ended, endAt := "", time.Time{}
	var err error
	for ended == "" && err == nil {
		// An end asked for comes first: the loop may have been busy
		// feeding a slow encoder while the limit's timer fired too.
		if ended, endAt = r.cutRequest(); ended != "" {
			break
		}
		select {
		case <-r.cut:
			ended, endAt = r.cutRequest()
		case <-limit.C:
			ended, endAt = limitText(r.opts.Max), limitAt
		case <-p.Closed():
			ended = EndTabClosed
		case <-crashed:
			ended = EndCrashed
		case <-enc.exited:
			err = enc.exitErr()
		case fr, ok := <-frames:
			if !ok {
				ended = gone(p)
				frames = nil
				break
			}
			err = f.picture(fr)
		case now := <-tick.C:
			err = f.padTo(now.Add(-lateness))
			if f.nearLimit(st.size(), r.opts.MaxBytes) {
				ended = limitText(sizeText(r.opts.MaxBytes))
			}
		}
		r.progress(f, st)
	}
	r.finished()
	drain(frames)
	if err == nil {
		// The rest of the last picture, up to the end: the time it was
		// asked for, or the limit's (its timer may fire late on a loaded
		// machine).
		if endAt.IsZero() || endAt.After(time.Now()) {
			endAt = time.Now()
		}
		if endAt.After(limitAt) {
			endAt = limitAt
		}
		err = f.end(endAt)
	}
	encErr := enc.finish(finishTimeout)
	switch {
	case ended != "":
	case f.nearLimit(st.size(), r.opts.MaxBytes):
		// ffmpeg stops at its own size bound (-fs) a little after ours.
		ended = limitText(sizeText(r.opts.MaxBytes))
	case encErr != nil:
		ended = EndEncoder + ": " + encErr.Error()
	default:
		ended = EndEncoder + ": " + err.Error()
	}
	r.mu.Lock()
	r.encCPU = enc.cpu()
	r.mu.Unlock()
	res := r.publish(f, st, ended)
	st.remove()
	r.mu.Lock()
	r.res = &res
	r.frames, r.painted = f.written, f.painted
	r.mu.Unlock()
	close(r.done)
}

// publish checks the finished file and, when it decodes, publishes it.
func (r *Recording) publish(f *filler, st *stage, ended string) Result {
	res := Result{
		SurfaceID: r.surface, Ended: ended, Frames: f.written, Painted: f.painted,
		Duration: time.Duration(f.written) * time.Second / fps,
	}
	early := ""
	if ended != EndStopped {
		early = "it ended early (" + ended + "); "
	}
	if f.written == 0 {
		res.Why = early + "not kept: the tab showed no picture to record"
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	info, err := probe(ctx, r.opts.FFprobe, st.file)
	if err != nil {
		res.Why = early + "not kept: the file does not decode: " + err.Error()
		return res
	}
	cut := ""
	if size := st.size(); size > r.opts.MaxBytes {
		// The encoder, behind on a loaded machine, wrote what it held
		// after the limit stopped the pictures: the end is cut off.
		fitted, err := fit(ctx, r.opts.FFmpeg, r.opts.FFprobe, st.file, info, size, r.opts.MaxBytes)
		if err != nil {
			res.Why = early + "not kept: the file is " + sizeText(size) + ", over the limit of " + sizeText(r.opts.MaxBytes) + ", and cutting it failed: " + err.Error()
			return res
		}
		cut = fmt.Sprintf("; its last %.1f s were cut to keep it under %s", (info.duration - fitted.duration).Seconds(), sizeText(r.opts.MaxBytes))
		info = fitted
		res.Frames = info.packets
	}
	path, err := publishFile(st.file, r.opts.Dir, r.opts.Name)
	if err != nil {
		res.Why = early + "not kept: publishing it failed: " + err.Error()
		return res
	}
	res.Path, res.Bytes, res.Kept = path, st.size(), true
	res.Duration = info.duration
	if early == "" {
		res.Why = "complete; it decodes: " + info.String() + cut
	} else {
		res.Why = early + "what was recorded decodes (" + info.String() + "), so it was kept" + cut
	}
	return res
}

// cutRequest is the reason and time of a Stop or Cut, once there is one.
func (r *Recording) cutRequest() (string, time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reason, r.cutAt
}

// progress publishes the counts for Status.
func (r *Recording) progress(f *filler, st *stage) {
	size := st.size()
	r.mu.Lock()
	r.frames, r.painted, r.bytes = f.written, f.painted, size
	r.mu.Unlock()
}

// gone says why the screencast's frames ended.
func gone(p *engine.Surface) string {
	if p.IsCrashed() {
		return EndCrashed
	}
	return EndTabClosed
}

// drain waits for the ended watch to close its channel (at once, once
// its context is cancelled), so the watch's goroutine is gone when the
// recording is done; bounded all the same.
func drain(frames <-chan live.Frame) {
	if frames == nil {
		return
	}
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case _, ok := <-frames:
			if !ok {
				return
			}
		case <-t.C:
			return
		}
	}
}

// nearLimit reports whether a file of size bytes so far is close enough
// to maxBytes to stop: the file grows a cluster (a second of video) at a
// time, the encoder holds frames not yet written, and the end adds an
// index, so it stops when what it has written in the last two and a half
// seconds (at the rate so far) would no longer fit.
func (f *filler) nearLimit(size, maxBytes int64) bool {
	headroom := int64(32 << 10)
	if secs := float64(f.written) / fps; secs >= 1 {
		headroom = max(headroom, int64(float64(size)/secs*2.5))
	}
	return size >= maxBytes-min(headroom, maxBytes/2)
}

// filler turns the page's uneven pictures into a constant-rate video:
// each picture fills the frames from its paint time to the next one's.
type filler struct {
	enc     *encoder
	start   time.Time
	max     int    // frames the video may hold (Max)
	last    []byte // the current picture (JPEG)
	written int    // frames given to the encoder
	painted int    // pictures received
}

// index is the video frame at time t.
func (f *filler) index(t time.Time) int {
	return max(0, int(math.Round(t.Sub(f.start).Seconds()*fps)))
}

// picture ends the current picture at the new one's paint time and makes
// the new one current. The browser's paint time is used when it is
// plausible, else when it arrived.
func (f *filler) picture(fr live.Frame) error {
	at := fr.Painted
	if at.IsZero() || at.After(fr.Received.Add(time.Second)) || at.Before(fr.Received.Add(-time.Minute)) {
		at = fr.Received
	}
	err := f.padTo(at)
	f.last = fr.JPEG
	f.painted++
	return err
}

// padTo repeats the current picture up to time t (the first picture also
// fills the frames before it: there is nothing else to show there).
func (f *filler) padTo(t time.Time) error {
	if f.last == nil {
		return nil
	}
	for n := min(f.index(t), f.max); f.written < n; f.written++ {
		if err := f.enc.write(f.last); err != nil {
			return err
		}
	}
	return nil
}

// end pads the current picture up to t, and gives the video one frame at
// least.
func (f *filler) end(t time.Time) error {
	if err := f.padTo(t); err != nil {
		return err
	}
	if f.written == 0 && f.last != nil {
		f.written++
		return f.enc.write(f.last)
	}
	return nil
}
