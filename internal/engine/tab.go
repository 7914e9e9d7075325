package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// ErrTabClosed means the tab closed while an operation used it.
var ErrTabClosed = errors.New("tab closed")

// ErrDocumentGone means the document an operation ran in went away (it
// navigated or its frame was removed) while the operation ran.
var ErrDocumentGone = errors.New("document went away")

// Tab is one page target: a surface of kind tab.
type Tab struct {
	ID       string // surface id, "s1"
	TargetID string
	b        *Browser
	sess     *cdp.Session
	ready    chan struct{} // closed when setup has finished
	closed   chan struct{} // closed when the target has gone
	setupErr error         // set before ready closes

	op   sync.Mutex      // serialises operations on this tab
	refs *snapshot.Table // guarded by op

	// mu guards the fields below. Taps write them on the reader goroutine.
	mu       sync.Mutex
	title    string
	url      string
	openerID string
	frames   map[string]*frame
	worlds   map[string]*world // by frame id
	isClosed bool
}

type frame struct {
	id, parent, loader, url string
}

// world is the agent's isolated world in one document of a frame.
type world struct {
	frame  string
	ctxID  int64
	loader string
}

func newTab(b *Browser, id string, info targetInfo, sess *cdp.Session) *Tab {
	return &Tab{
		ID: id, TargetID: info.TargetID, b: b, sess: sess,
		ready: make(chan struct{}), closed: make(chan struct{}),
		refs:  snapshot.NewTable(&b.counter),
		title: info.Title, url: info.URL, openerID: info.OpenerID,
		frames: map[string]*frame{}, worlds: map[string]*world{},
	}
}

func (t *Tab) wait(ctx context.Context) error {
	select {
	case <-t.ready:
		return t.setupErr
	case <-t.closed:
		return ErrTabClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// setup subscribes to the page and resumes it if it was paused at attach.
func (t *Tab) setup(ctx context.Context, waiting bool) {
	defer close(t.ready)
	s := t.sess
	s.Tap(t.onFrameEvent, "Page.frameNavigated", "Page.frameAttached", "Page.frameDetached",
		"Page.navigatedWithinDocument")
	dialogs, cancel := s.Listen("Page.javascriptDialogOpening")
	t.b.wg.Add(1)
	go func() {
		defer t.b.wg.Done()
		defer cancel()
		t.dialogLoop(ctx, dialogs)
	}()
	calls := []struct {
		method string
		params any
	}{
		{"Page.enable", nil},
		{"Page.setLifecycleEventsEnabled", map[string]bool{"enabled": true}},
	}
	for _, c := range calls {
		if err := s.Call(ctx, c.method, c.params, nil); err != nil {
			t.setupErr = err
			return
		}
	}
	tree, err := cdpproto.Call(ctx, s, page.GetFrameTree, cdpproto.Empty{})
	if err != nil {
		t.setupErr = err
		return
	}
	t.mu.Lock()
	var add func(ft *page.FrameTree, parent string)
	add = func(ft *page.FrameTree, parent string) {
		f := ft.Frame
		t.frames[string(f.ID)] = &frame{id: string(f.ID), parent: parent, loader: string(f.LoaderID), url: f.URL + f.URLFragment}
		for _, c := range ft.ChildFrames {
			add(c, string(f.ID))
		}
	}
	add(tree.FrameTree, "")
	t.mu.Unlock()
	if waiting {
		if err := s.Call(ctx, "Runtime.runIfWaitingForDebugger", nil, nil); err != nil {
			t.setupErr = err
		}
	}
}

// dialogLoop answers JavaScript dialogs so that they never block the page
// an agent drives: alerts and beforeunload prompts are accepted, confirm
// and prompt dialogs dismissed.
func (t *Tab) dialogLoop(ctx context.Context, events <-chan cdp.Event) {
	for ev := range events {
		var d struct {
			Type string `json:"type"`
		}
		_ = jsonv2.Unmarshal(ev.Params, &d)
		accept := d.Type == "alert" || d.Type == "beforeunload"
		_ = t.sess.Call(ctx, "Page.handleJavaScriptDialog", map[string]bool{"accept": accept}, nil)
	}
}

// onFrameEvent keeps the frame table current. It runs on the reader
// goroutine (see cdp.Session.Tap).
func (t *Tab) onFrameEvent(ev cdp.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Method {
	case "Page.frameNavigated":
		var e struct {
			Frame struct {
				ID          string `json:"id"`
				ParentID    string `json:"parentId"`
				LoaderID    string `json:"loaderId"`
				URL         string `json:"url"`
				URLFragment string `json:"urlFragment"`
			} `json:"frame"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		f := e.Frame
		// A new document: its worlds and its descendants are gone.
		t.dropDescendants(f.ID)
		delete(t.worlds, f.ID)
		t.frames[f.ID] = &frame{id: f.ID, parent: f.ParentID, loader: f.LoaderID, url: f.URL + f.URLFragment}
		if f.ParentID == "" {
			t.url = f.URL + f.URLFragment
		}
	case "Page.frameAttached":
		var e struct {
			FrameID       string `json:"frameId"`
			ParentFrameID string `json:"parentFrameId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			if _, ok := t.frames[e.FrameID]; !ok {
				t.frames[e.FrameID] = &frame{id: e.FrameID, parent: e.ParentFrameID}
			}
		}
	case "Page.frameDetached":
		var e struct {
			FrameID string `json:"frameId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			t.dropDescendants(e.FrameID)
			delete(t.frames, e.FrameID)
			delete(t.worlds, e.FrameID)
		}
	case "Page.navigatedWithinDocument":
		var e struct {
			FrameID string `json:"frameId"`
			URL     string `json:"url"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			if f := t.frames[e.FrameID]; f != nil {
				f.url = e.URL
				if f.parent == "" {
					t.url = e.URL
				}
			}
		}
	}
}

// dropDescendants forgets the frames below id. Caller holds t.mu.
func (t *Tab) dropDescendants(id string) {
	for fid, f := range t.frames {
		if f.parent == id {
			t.dropDescendants(fid)
			delete(t.frames, fid)
			delete(t.worlds, fid)
		}
	}
}

func (t *Tab) setInfo(title, url string) {
	t.mu.Lock()
	t.title, t.url = title, url
	t.mu.Unlock()
}

func (t *Tab) setTitle(title string) {
	t.mu.Lock()
	t.title = title
	t.mu.Unlock()
}

// info is the tab's title and its committed top-level URL.
func (t *Tab) info() (title, url string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	url = t.url
	if f := t.frames[t.TargetID]; f != nil && f.url != "" {
		url = f.url
	}
	return t.title, url
}

func (t *Tab) openerSurface() string {
	t.mu.Lock()
	opener := t.openerID
	t.mu.Unlock()
	if opener == "" {
		return ""
	}
	if o := t.b.byTarget[opener]; o != nil { // caller holds b.mu
		return o.ID
	}
	return ""
}

func (t *Tab) markClosed() {
	t.mu.Lock()
	if t.isClosed {
		t.mu.Unlock()
		return
	}
	t.isClosed = true
	t.mu.Unlock()
	close(t.closed)
}

// mainFrame is the id of the tab's top frame (equal to its target id).
func (t *Tab) mainFrame() string { return t.TargetID }

func (t *Tab) frameState(id string) (frame, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.frames[id]
	if !ok {
		return frame{}, false
	}
	return *f, true
}

// currentWorld returns the agent's world in the frame's current document,
// or nil if there is none yet (or the document changed since).
func (t *Tab) currentWorld(frameID string) *world {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, f := t.worlds[frameID], t.frames[frameID]
	if w == nil || f == nil || w.loader != f.loader {
		return nil
	}
	return w
}

// world returns the agent's world in the frame's current document,
// creating it and installing the agent on first use. Caller holds t.op.
func (t *Tab) world(ctx context.Context, frameID string) (*world, error) {
	if w := t.currentWorld(frameID); w != nil {
		return w, nil
	}
	if _, ok := t.frameState(frameID); !ok {
		return nil, ErrDocumentGone
	}
	res, err := cdpproto.Call(ctx, t.sess, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: cdpproto.FrameID(frameID), WorldName: snapshot.WorldName, GrantUniveralAccess: ptr(false),
	})
	if err != nil {
		return nil, mapWorldErr(err)
	}
	// The reply follows every event sent before it, and taps have applied
	// them: the frame's loader is the document the world was made in.
	f, ok := t.frameState(frameID)
	if !ok {
		return nil, ErrDocumentGone
	}
	w := &world{frame: frameID, ctxID: int64(res.ExecutionContextID), loader: f.loader}
	var installed bool
	if err := t.evalIn(ctx, w, snapshot.AgentScript(), &installed); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.worlds[frameID] = w
	t.mu.Unlock()
	// Refs of this frame's earlier documents can never resolve again.
	t.refs.DropFrame(frameID, snapshot.Doc{Frame: frameID, World: w.ctxID})
	return w, nil
}

func mapWorldErr(err error) error {
	var ce *cdp.Error
	if errors.As(err, &ce) && (strings.Contains(ce.Message, "Cannot find context") ||
		strings.Contains(ce.Message, "No frame") || strings.Contains(ce.Message, "Frame with the given") ||
		strings.Contains(ce.Message, "Execution context was destroyed")) {
		return fmt.Errorf("%w: %v", ErrDocumentGone, err)
	}
	return err
}

// evalIn evaluates expr in the world, awaiting a promise, and decodes the
// JSON value it returns into out (which may be nil).
func (t *Tab) evalIn(ctx context.Context, w *world, expr string, out any) error {
	res, err := cdpproto.Call(ctx, t.sess, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: runtime.ExecutionContextID(w.ctxID),
		ReturnByValue: ptr(true), AwaitPromise: ptr(true), Silent: ptr(true),
	})
	if err != nil {
		return mapWorldErr(err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		msg := ex.Text
		if ex.Exception != nil && ex.Exception.Description != "" {
			msg = ex.Exception.Description
		}
		if strings.Contains(msg, "Execution context was destroyed") || strings.Contains(msg, "Inspected target navigated or closed") {
			return fmt.Errorf("%w: %s", ErrDocumentGone, msg)
		}
		return fmt.Errorf("page agent: %s", firstLine(msg))
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return jsonv2.Unmarshal(res.Result.Value, out)
}

// agentCall runs one agent function in a world: name(args...).
func (t *Tab) agentCall(ctx context.Context, w *world, fn string, out any, args ...any) error {
	var b strings.Builder
	b.WriteString("__loupe.")
	b.WriteString(fn)
	b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			b.WriteByte(',')
		}
		js, err := jsonv2.Marshal(a)
		if err != nil {
			return err
		}
		b.Write(js)
	}
	b.WriteByte(')')
	return t.evalIn(ctx, w, b.String(), out)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func staleErr(ref, why string) *apitype.Error {
	return apitype.Errorf(apitype.StaleRef, "%s is stale: %s", ref, why)
}
