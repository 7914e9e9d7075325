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
	State     string    `json:"state"` // in_progress, completed, canceled
	Bytes     int64     `json:"bytes"`
	Total     int64     `json:"total,omitempty"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished,omitzero"`

	waited bool // returned by WaitDownload already
}

// downloads tracks the session's downloads. Chromium saves each under its
// guid (allowAndName); when one completes it is renamed to its suggested
// file name, made unique in the directory.
type downloads struct {
	dir string

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
func (b *Browser) EnableDownloads(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	d := &downloads{dir: dir, byID: map[string]*Download{}, changed: make(chan struct{})}
	bs := b.conn.Browser()
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
	surface := ""
	if ev.Method == "Browser.downloadWillBegin" && e.FrameID != "" {
		surface = b.surfaceOfFrame(e.FrameID)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.byID[e.GUID]
	switch ev.Method {
	case "Browser.downloadWillBegin":
		if r != nil {
			return
		}
		d.seq++
		r = &Download{Seq: d.seq, ID: e.GUID, SurfaceID: surface, URL: e.URL, Filename: e.SuggestedFilename, State: "in_progress", Started: time.Now()}
		d.byID[e.GUID] = r
		if len(d.list) >= maxDownloads {
			delete(d.byID, d.list[0].ID)
			d.list = d.list[1:]
		}
		d.list = append(d.list, r)
	case "Browser.downloadProgress":
		if r == nil || r.State != "in_progress" {
			return
		}
		r.Bytes, r.Total = e.ReceivedBytes, e.TotalBytes
		switch e.State {
		case "completed":
			r.State, r.Finished = "completed", time.Now()
			r.Path = d.place(e.GUID, r.Filename)
		case "canceled":
			r.State, r.Finished = "canceled", time.Now()
		}
	}
	close(d.changed)
	d.changed = make(chan struct{})
}

// place renames a finished download from its guid to a unique, plain file
// name inside the directory, and returns its path ("" if it is missing).
func (d *downloads) place(guid, suggested string) string {
	from := filepath.Join(d.dir, guid)
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

// surfaceOfFrame finds the surface of a frame in any page.
func (b *Browser) surfaceOfFrame(frameID string) string {
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
			return s
		}
	}
	return ""
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
			if r.State != "in_progress" && !r.waited {
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
