// Package chooser answers the file choosers pages open. A click on a
// file input, or on a button whose script calls input.click() or
// showOpenFilePicker's fallback, opens the browser's native file chooser:
// headless, nobody can answer it, and the click looks as if it did
// nothing. With the choosers intercepted (Page.setInterceptFileChooserDialog)
// the page's request is reported instead — to the write that caused it
// and as an event — and stays pending until an upload answers it with
// files (DOM.setFileInputFiles on the input that asked), or the page asks
// again.
//
// Interception is for browsers nobody watches: a person at a headed or
// attached browser gets the native chooser, as they would without loupe
// (see package sessions).
package chooser

import (
	"context"
	"fmt"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
)

// Pending is a file chooser a page opened and nobody has answered.
type Pending struct {
	Page     string    // the tab's surface id
	FrameID  string    // the frame whose input asked
	Multiple bool      // the input takes several files
	Opened   time.Time // when the page asked
	node     int64     // the input's backend node id, in sess's document
	sess     engine.Session
}

// Choosers are a browser's pending file choosers, at most one per tab: a
// page that asks again replaces its earlier request.
type Choosers struct {
	mu sync.Mutex
	by map[string]Pending
}

// Of is the browser's choosers.
func Of(b *engine.Browser) *Choosers {
	return b.Kept("chooser.pending", func() any { return &Choosers{by: map[string]Pending{}} }).(*Choosers)
}

// Pending is the tab's unanswered file chooser, if any.
func (c *Choosers) Pending(page string) (Pending, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.by[page]
	return p, ok
}

// Intercept makes every page of the browser report its file choosers
// instead of opening the native one; opened is told of each (on a
// goroutine of the browser's).
func Intercept(opened func(ctx context.Context, t *engine.Surface, p Pending)) engine.Option {
	return engine.WithSessionHook(func(page *engine.Surface, s engine.Session) []engine.SetupCall {
		s.Tap(func(ev cdp.Event) { onOpened(page, s, ev, opened) }, "Page.fileChooserOpened")
		return []engine.SetupCall{{Method: "Page.setInterceptFileChooserDialog", Params: map[string]bool{"enabled": true}}}
	})
}

// onOpened records a page's request (on the connection's reader: a tap).
func onOpened(page *engine.Surface, s engine.Session, ev cdp.Event, opened func(context.Context, *engine.Surface, Pending)) {
	var e struct {
		FrameID       string `json:"frameId"`
		Mode          string `json:"mode"`
		BackendNodeID int64  `json:"backendNodeId"`
	}
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.BackendNodeID == 0 {
		return
	}
	p := Pending{Page: page.ID, FrameID: e.FrameID, Multiple: e.Mode == "selectMultiple", Opened: time.Now(), node: e.BackendNodeID, sess: s}
	c := Of(page.Browser())
	c.mu.Lock()
	c.by[page.ID] = p
	c.mu.Unlock()
	if opened != nil {
		page.Browser().Go(func(ctx context.Context) { opened(ctx, page, p) })
	}
}

// Answer gives the tab's pending file chooser the files, as a person
// choosing them would (the input's change and input events fire). No
// pending chooser is BAD_INPUT, not executed.
func Answer(ctx context.Context, t *engine.Surface, paths []string) error {
	c := Of(t.Browser())
	page := t.PageID()
	c.mu.Lock()
	p, ok := c.by[page]
	c.mu.Unlock()
	switch {
	case !ok:
		return apitype.Errorf(apitype.BadInput, "no file chooser is open in %s: click what opens one first, or upload to the file input itself", page)
	case len(paths) > 1 && !p.Multiple:
		return apitype.Errorf(apitype.BadInput, "the file chooser of %s takes one file, got %d", page, len(paths))
	}
	err := p.sess.Call(ctx, "DOM.setFileInputFiles", map[string]any{"files": paths, "backendNodeId": p.node}, nil)
	if err != nil {
		c.mu.Lock()
		if cur, ok := c.by[page]; ok && cur.Opened == p.Opened {
			delete(c.by, page)
		}
		c.mu.Unlock()
		// setFileInputFiles sets the files whole or not at all.
		return apitype.Wrap(apitype.NotActionable, err, "the input that opened the file chooser is gone (%v): click what opens it again", err)
	}
	c.mu.Lock()
	if cur, ok := c.by[page]; ok && cur.Opened == p.Opened {
		delete(c.by, page)
	}
	c.mu.Unlock()
	return nil
}

// String describes a pending chooser for a report.
func (p Pending) String() string {
	n := "one file"
	if p.Multiple {
		n = "files"
	}
	return fmt.Sprintf("a file chooser for %s is open in %s", n, p.Page)
}
