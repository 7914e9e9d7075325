package handlers

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/record"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
)

// recordTab starts, stops or reports a recording of a tab (the caller's
// current one by default). A started recording is brought to the front
// of its window (a background tab paints nothing), is cut when a person
// takes the tab over ("taken over": what the person does is not the
// agent's to record), and ends by itself at its limit or with its tab.
func recordTab(ctx context.Context, d *Deps, in *ops.RecordIn) (*ops.RecordOut, error) {
	t, err := pageOf(ctx, d.Caller, in.Surface)
	if err != nil {
		return nil, err
	}
	page := t.PageID()
	active := record.ActiveIn(t.Browser())
	switch in.Action {
	case "start":
		dir, err := d.Files.Own()
		if err != nil {
			return nil, err
		}
		if _, err := surface.Activate(ctx, t.Browser(), page); err != nil {
			return nil, err
		}
		_, epoch := d.Control.Mode(page)
		r, err := active.Start(ctx, t, record.Options{Max: in.Max.Duration(), Dir: dir})
		if err != nil {
			return nil, err
		}
		moved := d.Control.Moved(page, epoch)
		go func() { // ends with the recording, at most its hard limit later
			select {
			case <-moved:
				cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_, _ = r.Cut(cctx, "taken over")
			case <-r.Done():
			}
		}()
		return recordingOut(r.Status()), nil
	case "stop":
		r, ok := active.Of(page)
		if !ok {
			return &ops.RecordOut{SurfaceID: page}, nil
		}
		res, err := r.Stop(ctx)
		if err != nil {
			return nil, err
		}
		return resultOut(res), nil
	}
	r, ok := active.Of(page)
	if !ok {
		return &ops.RecordOut{SurfaceID: page}, nil
	}
	if res, done := r.Result(); done {
		return resultOut(res), nil
	}
	return recordingOut(r.Status()), nil
}

func recordingOut(s record.Status) *ops.RecordOut {
	return &ops.RecordOut{SurfaceID: s.SurfaceID, Running: s.Running, ElapsedMS: s.Elapsed.Milliseconds(), MaxMS: s.Max.Milliseconds(),
		Frames: s.Frames, Bytes: s.Bytes, Ended: s.Ended}
}

func resultOut(r record.Result) *ops.RecordOut {
	return &ops.RecordOut{SurfaceID: r.SurfaceID, Path: r.Path, Bytes: r.Bytes, Duration: r.Duration.Seconds(), Frames: r.Frames,
		Ended: r.Ended, Kept: r.Kept, Why: r.Why}
}
