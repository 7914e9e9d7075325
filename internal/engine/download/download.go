// Package download tracks the downloads of a session's browser: Chromium
// saves each under its guid in a staging directory outside the agent's
// files (allowAndName), so that nothing of a download the policy has not
// allowed, not even its partial bytes, is in the agent's reach; loupe
// files a completed one in the downloads directory under its suggested name,
// made unique — unless the download policy holds it (it then waits in a
// hold directory, out of the agent's reach, until a person releases or
// refuses it) or denies it (cancelled, nothing kept).
package download

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// Download is one file the browser downloaded (or is downloading).
type Download struct {
	Seq       int64     `json:"seq"`
	ID        string    `json:"id"` // the browser's guid
	SurfaceID string    `json:"surface_id,omitempty"`
	URL       string    `json:"url"`
	Filename  string    `json:"filename"` // as the page suggested it
	Path      string    `json:"path,omitempty"`
	State     string    `json:"state"` // in_progress, held, completed, canceled, denied
	Bytes     int64     `json:"bytes"`
	Total     int64     `json:"total,omitempty"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished,omitzero"`

	// PageURL is the address of the page that started it (for the
	// download policy's origin rules).
	PageURL string `json:"-"`

	waited bool      // returned by WaitDownload already
	told   time.Time // when Progress last heard of it
	// decision is the gate's or a person's answer: allow, deny, or hold
	// (waiting for Release).
	decision Decision
}

// Decision is what the download policy says of a download.
type Decision int

const (
	Allow Decision = iota // save it
	Deny                  // cancel it, keep nothing
	Hold                  // keep it out of reach until Release
)

// Options are the session's download policy and listener.
type Options struct {
	// Gate decides each download as it begins (nil: allow all). It runs
	// on the connection's reader: it must not block; a held download is
	// answered later with t.Release.
	Gate func(t *Tracker, d Download) Decision
	// HoldDir is where a held download waits once complete, out of the
	// agent's files; needed with Gate.
	HoldDir string
	// StagingDir is where the browser writes downloads in flight, out of
	// the agent's files (created 0700); empty means the downloads
	// directory itself.
	StagingDir string
	// Notify hears of each download as it begins, when it is held
	// complete, and as it ends (for a held one, in ReleaseDownload); it
	// must not block.
	Notify func(Download)
	// Progress hears of a download in flight as its bytes arrive, at most
	// once every ProgressEvery; it must not block.
	Progress func(Download)
}

// ProgressEvery is how often Progress hears of one download at most.
const ProgressEvery = 250 * time.Millisecond

// Tracker tracks one browser's downloads. It is safe for concurrent use.
type Tracker struct {
	dir     string // where completed, allowed downloads are filed
	staging string // where the browser writes them
	opt     Options
	bs      *cdp.Session
	b       *engine.Browser

	mu      sync.Mutex
	seq     int64
	list    []*Download
	byID    map[string]*Download
	changed chan struct{} // closed and replaced on every change
	wg      sync.WaitGroup
	stop    func()
}

const maxDownloads = 500

// Track makes the browser save downloads into dir (created 0700) and
// tracks them until Close. Call it once, after Launch or Attach; give an
// attached browser its default behaviour back with Restore before
// detaching.
func Track(ctx context.Context, b *engine.Browser, dir string, opt Options) (*Tracker, error) {
	staging := opt.StagingDir
	if staging == "" {
		staging = dir
	}
	for _, d := range []string{dir, staging} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	bs := b.BrowserSession()
	d := &Tracker{dir: dir, staging: staging, opt: opt, bs: bs, b: b, byID: map[string]*Download{}, changed: make(chan struct{})}
	events, cancel := bs.Listen("Browser.downloadWillBegin", "Browser.downloadProgress")
	if err := bs.Call(ctx, "Browser.setDownloadBehavior", map[string]any{
		"behavior": "allowAndName", "downloadPath": staging, "eventsEnabled": true,
	}, nil); err != nil {
		cancel()
		return nil, err
	}
	// A temp partition is a browser context of its own, with the
	// browser's default download behaviour until it is told otherwise.
	surface.OnNewPartition(b, func(ctx context.Context, id string) error {
		return bs.Call(ctx, "Browser.setDownloadBehavior", map[string]any{
			"behavior": "allowAndName", "downloadPath": staging, "eventsEnabled": true, "browserContextId": id,
		}, nil)
	})
	d.stop = cancel
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for ev := range events { // ends with the connection, or Close
			d.onEvent(ev)
		}
	}()
	return d, nil
}

// Close stops tracking and waits for the tracker's goroutines.
func (d *Tracker) Close() {
	d.stop()
	d.wg.Wait()
}

func (d *Tracker) onEvent(ev cdp.Event) {
	var e struct {
		GUID              string `json:"guid"`
		FrameID           string `json:"frameId"`
		URL               string `json:"url"`
		SuggestedFilename string `json:"suggestedFilename"`
		State             string `json:"state"`
		ReceivedBytes     int64  `json:"receivedBytes"`
		TotalBytes        int64  `json:"totalBytes"`
	}
	if jsonv2.Unmarshal(ev.Params, &e) != nil {
		return
	}
	surface, page := "", ""
	if ev.Method == "Browser.downloadWillBegin" && e.FrameID != "" {
		surface, page = d.b.FrameSurface(e.FrameID)
	}
	var told, moved *Download // copies for Notify and Progress, outside d.mu
	d.mu.Lock()
	defer func() {
		d.mu.Unlock()
		if told != nil && d.opt.Notify != nil {
			d.opt.Notify(*told)
		}
		if moved != nil && d.opt.Progress != nil {
			d.opt.Progress(*moved)
		}
	}()
	r := d.byID[e.GUID]
	switch ev.Method {
	case "Browser.downloadWillBegin":
		if r != nil {
			return
		}
		d.seq++
		r = &Download{Seq: d.seq, ID: e.GUID, SurfaceID: surface, URL: e.URL, Filename: e.SuggestedFilename, State: "in_progress", Started: time.Now(), PageURL: page}
		d.byID[e.GUID] = r
		if len(d.list) >= maxDownloads {
			delete(d.byID, d.list[0].ID)
			d.list = d.list[1:]
		}
		d.list = append(d.list, r)
		if d.opt.Gate != nil {
			r.decision = d.opt.Gate(d, *r)
		}
		if r.decision == Deny {
			d.deny(r)
		}
		c := *r
		told = &c
	case "Browser.downloadProgress":
		if r != nil && r.State == "denied" && e.State == "completed" {
			_ = os.Remove(filepath.Join(d.staging, r.ID)) // it finished before the cancel
			return
		}
		if r == nil || r.State != "in_progress" {
			return
		}
		r.Bytes, r.Total = e.ReceivedBytes, e.TotalBytes
		switch e.State {
		case "completed":
			r.Finished = time.Now()
			d.settle(r)
		case "canceled":
			r.State, r.Finished = "canceled", time.Now()
		default:
			if now := time.Now(); now.Sub(r.told) >= ProgressEvery {
				r.told = now
				c := *r
				moved = &c
			}
			d.changedLocked()
			return
		}
		c := *r
		told = &c
	}
	d.changedLocked()
}

func (d *Tracker) changedLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// settle files a completed download by its decision: placed in the
// directory, held out of reach, or removed. Caller holds d.mu.
func (d *Tracker) settle(r *Download) {
	switch r.decision {
	case Allow:
		r.State, r.Path = "completed", d.place(filepath.Join(d.staging, r.ID), r.Filename)
	case Hold:
		r.State = "held"
		from, to := filepath.Join(d.staging, r.ID), filepath.Join(d.opt.HoldDir, r.ID)
		if os.MkdirAll(d.opt.HoldDir, 0o700) != nil || os.Rename(from, to) != nil {
			_ = os.Remove(from) // what cannot be held out of reach is not kept
		}
	default:
		r.State = "denied"
		_ = os.Remove(filepath.Join(d.staging, r.ID))
	}
}

// deny cancels a download in flight; what it wrote is removed when it
// ends. Caller holds d.mu.
func (d *Tracker) deny(r *Download) {
	r.decision, r.State, r.Finished = Deny, "denied", time.Now()
	guid, dir := r.ID, d.staging
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.bs.Call(ctx, "Browser.cancelDownload", map[string]any{"guid": guid}, nil)
		_ = os.Remove(filepath.Join(dir, guid))
	}()
}

// Release answers a held download: allow saves it into the downloads
// directory (at once if it is complete, else when it is), refuse cancels
// it and keeps nothing.
func (d *Tracker) Release(guid string, allow bool) (Download, error) {
	d.mu.Lock()
	r := d.byID[guid]
	if r == nil || r.decision != Hold {
		d.mu.Unlock()
		return Download{}, fmt.Errorf("download: %s is not held", guid)
	}
	finished := r.State == "held"
	switch {
	case r.State == "in_progress" && allow:
		r.decision = Allow
	case r.State == "in_progress":
		d.deny(r)
	case allow:
		r.decision = Allow
		r.State, r.Path = "completed", d.place(filepath.Join(d.opt.HoldDir, r.ID), r.Filename)
	default:
		r.decision, r.State = Deny, "denied"
		_ = os.Remove(filepath.Join(d.opt.HoldDir, r.ID))
	}
	d.changedLocked()
	out := *r
	d.mu.Unlock()
	if (finished || out.State == "denied") && d.opt.Notify != nil {
		d.opt.Notify(out) // a download still in flight is told of when it ends
	}
	return out, nil
}

// place renames a finished download (at from) to a unique, plain file
// name inside the directory, and returns its path ("" if it is missing).
func (d *Tracker) place(from, suggested string) string {
	if _, err := os.Stat(from); err != nil {
		return ""
	}
	name := filepath.Base(strings.ReplaceAll(suggested, "\\", "/"))
	if name == "" || name == "." || name == "/" || strings.HasPrefix(name, ".") {
		name = "download"
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; ; i++ {
		to := filepath.Join(d.dir, name)
		if _, err := os.Lstat(to); os.IsNotExist(err) {
			if os.Rename(from, to) == nil {
				return to
			}
			return from
		}
		name = fmt.Sprintf("%s (%d)%s", stem, i, ext)
	}
}

// List is the session's downloads, oldest first.
func (d *Tracker) List() []Download {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Download, 0, len(d.list))
	for _, r := range d.list {
		out = append(out, *r)
	}
	return out
}

// Count is how many downloads have begun so far (for telling what a write
// set off).
func (d *Tracker) Count() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seq
}

// WaitDownload returns the oldest finished download (completed or
// canceled) that no earlier WaitDownload returned, waiting for one to
// finish if there is none yet; bounded by ctx (TIMEOUT). So a download that
// finished between the click that started it and the wait is not missed,
// and each download is returned once.
func (d *Tracker) Wait(ctx context.Context) (*Download, error) {
	return d.WaitFor(ctx, nil)
}

// WaitFor is Wait over the downloads keep accepts (nil: all): a caller
// confined to its own tabs waits for a download of its own, and leaves
// the others' to be waited for by them.
func (d *Tracker) WaitFor(ctx context.Context, keep func(Download) bool) (*Download, error) {
	for {
		d.mu.Lock()
		for _, r := range d.list {
			if r.State != "in_progress" && r.State != "held" && !r.waited && (keep == nil || keep(*r)) {
				r.waited = true
				out := *r
				d.mu.Unlock()
				return &out, nil
			}
		}
		ch := d.changed
		d.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, apitype.Errorf(apitype.Timeout, "no download finished in time")
		case <-d.b.Done():
			return nil, apitype.Errorf(apitype.BrowserGone, "the browser exited during the wait for a download")
		}
	}
}

// Restore gives an attached browser its default download behaviour back.
func (d *Tracker) Restore(ctx context.Context) {
	_ = d.bs.Call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "default"}, nil)
}
