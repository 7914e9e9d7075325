package engine

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

	waited bool // returned by WaitDownload already
	// decision is the gate's or a person's answer: allow, deny, or hold
	// (waiting for Release).
	decision DownloadDecision
}

// DownloadDecision is what the download policy says of a download.
type DownloadDecision int

const (
	DownloadAllow DownloadDecision = iota // save it
	DownloadDeny                          // cancel it, keep nothing
	DownloadHold                          // keep it out of reach until Release
)

// DownloadOptions are the session's download policy and listener.
type DownloadOptions struct {
	// Gate decides each download as it begins (nil: allow all). It runs
	// on the connection's reader: it must not block.
	Gate func(Download) DownloadDecision
	// HoldDir is where a held download waits once complete, out of the
	// agent's files; needed with Gate.
	HoldDir string
	// Notify hears of each download as it begins, when it is held
	// complete, and as it ends (for a held one, in ReleaseDownload); it
	// must not block.
	Notify func(Download)
}

// downloads tracks the session's downloads. Chromium saves each under its
// guid (allowAndName); when one completes it is renamed to its suggested
// file name, made unique in the directory — unless the policy holds it: it
// is then moved to the hold directory, out of the agent's reach, until a
// person releases or refuses it.
type downloads struct {
	dir string
	opt DownloadOptions
	bs  *cdp.Session

	mu      sync.Mutex
	seq     int64
	list    []*Download
	byID    map[string]*Download
	changed chan struct{} // closed and replaced on every change
}

const maxDownloads = 500

// EnableDownloads makes the browser save downloads into dir (created 0700)
// and tracks them. Call it once, after Launch or Attach; an attached
// browser gets its default behaviour back when the session closes.
func (b *Browser) EnableDownloads(ctx context.Context, dir string, opt DownloadOptions) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	bs := b.conn.Browser()
	d := &downloads{dir: dir, opt: opt, bs: bs, byID: map[string]*Download{}, changed: make(chan struct{})}
	events, cancel := bs.Listen("Browser.downloadWillBegin", "Browser.downloadProgress")
	if err := bs.Call(ctx, "Browser.setDownloadBehavior", map[string]any{
		"behavior": "allowAndName", "downloadPath": dir, "eventsEnabled": true,
	}, nil); err != nil {
		cancel()
		return err
	}
	b.mu.Lock()
	b.dl = d
	b.mu.Unlock()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		for ev := range events {
			b.onDownload(d, ev)
		}
	}()
	return nil
}

func (b *Browser) onDownload(d *downloads, ev cdp.Event) {
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
		surface, page = b.surfaceOfFrame(e.FrameID)
	}
	var told *Download // a copy for Notify, outside d.mu
	d.mu.Lock()
	defer func() {
		d.mu.Unlock()
		if told != nil && d.opt.Notify != nil {
			d.opt.Notify(*told)
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
			r.decision = d.opt.Gate(*r)
		}
		if r.decision == DownloadDeny {
			d.deny(b, r)
		}
		c := *r
		told = &c
	case "Browser.downloadProgress":
		if r != nil && r.State == "denied" && e.State == "completed" {
			_ = os.Remove(filepath.Join(d.dir, r.ID)) // it finished before the cancel
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
			return
		}
		c := *r
		told = &c
	}
	d.changedLocked()
}

func (d *downloads) changedLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// settle files a completed download by its decision: placed in the
// directory, held out of reach, or removed. Caller holds d.mu.
func (d *downloads) settle(r *Download) {
	switch r.decision {
	case DownloadAllow:
		r.State, r.Path = "completed", d.place(filepath.Join(d.dir, r.ID), r.Filename)
	case DownloadHold:
		r.State = "held"
		from, to := filepath.Join(d.dir, r.ID), filepath.Join(d.opt.HoldDir, r.ID)
		if os.MkdirAll(d.opt.HoldDir, 0o700) != nil || os.Rename(from, to) != nil {
			_ = os.Remove(from) // what cannot be held out of reach is not kept
		}
	default:
		r.State = "denied"
		_ = os.Remove(filepath.Join(d.dir, r.ID))
	}
}

// deny cancels a download in flight; what it wrote is removed when it
// ends. Caller holds d.mu.
func (d *downloads) deny(b *Browser, r *Download) {
	r.decision, r.State, r.Finished = DownloadDeny, "denied", time.Now()
	guid, dir := r.ID, d.dir
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.bs.Call(ctx, "Browser.cancelDownload", map[string]any{"guid": guid}, nil)
		_ = os.Remove(filepath.Join(dir, guid))
	}()
}

// ReleaseDownload answers a held download: allow saves it into the
// downloads directory (at once if it is complete, else when it is),
// refuse cancels it and keeps nothing.
func (b *Browser) ReleaseDownload(guid string, allow bool) (Download, error) {
	d, err := b.downloads()
	if err != nil {
		return Download{}, err
	}
	d.mu.Lock()
	r := d.byID[guid]
	if r == nil || r.decision != DownloadHold {
		d.mu.Unlock()
		return Download{}, fmt.Errorf("engine: download %s is not held", guid)
	}
	finished := r.State == "held"
	switch {
	case r.State == "in_progress" && allow:
		r.decision = DownloadAllow
	case r.State == "in_progress":
		d.deny(b, r)
	case allow:
		r.decision = DownloadAllow
		r.State, r.Path = "completed", d.place(filepath.Join(d.opt.HoldDir, r.ID), r.Filename)
	default:
		r.decision, r.State = DownloadDeny, "denied"
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
func (d *downloads) place(from, suggested string) string {
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

// surfaceOfFrame finds the surface of a frame in any page, and that
// page's address.
func (b *Browser) surfaceOfFrame(frameID string) (surface, pageURL string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range b.byTarget {
		t.mu.Lock()
		_, ok := t.frames[frameID]
		s := ""
		if ok {
			s = t.surfaceOf(frameID)
		}
		t.mu.Unlock()
		if s != "" {
			return s, t.URL()
		}
	}
	return "", ""
}

// Downloads lists the session's downloads, oldest first.
func (b *Browser) Downloads() ([]Download, error) {
	d, err := b.downloads()
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Download, 0, len(d.list))
	for _, r := range d.list {
		out = append(out, *r)
	}
	return out, nil
}

// WaitDownload returns the oldest finished download (completed or
// canceled) that no earlier WaitDownload returned, waiting for one to
// finish if there is none yet; bounded by ctx (TIMEOUT). So a download that
// finished between the click that started it and the wait is not missed,
// and each download is returned once.
func (b *Browser) WaitDownload(ctx context.Context) (*Download, error) {
	d, err := b.downloads()
	if err != nil {
		return nil, err
	}
	for {
		d.mu.Lock()
		for _, r := range d.list {
			if r.State != "in_progress" && r.State != "held" && !r.waited {
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
		case <-b.conn.Done():
			return nil, b.conn.Err()
		}
	}
}

func (b *Browser) downloads() (*downloads, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dl == nil {
		return nil, apitype.Errorf(apitype.TransportUnsupported, "downloads are not tracked in this session")
	}
	return b.dl, nil
}

// restoreDownloads gives an attached browser its default download
// behaviour back.
func (b *Browser) restoreDownloads(ctx context.Context) {
	b.mu.Lock()
	d := b.dl
	b.mu.Unlock()
	if d == nil || b.proc != nil {
		return
	}
	_ = b.conn.Browser().Call(ctx, "Browser.setDownloadBehavior", map[string]any{"behavior": "default"}, nil)
}
