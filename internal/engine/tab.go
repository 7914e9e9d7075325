package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
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
	owners   map[ownerKey]int64
	// worldLocks makes world creation single-flight per frame: concurrent
	// frame captures ask for their parents' worlds too.
	worldLocks map[string]*sync.Mutex
	isClosed   bool
}

func newTab(b *Browser, id string, info targetInfo, sess *cdp.Session) *Tab {
	return &Tab{
		ID: id, TargetID: info.TargetID, b: b, sess: sess,
		ready: make(chan struct{}), closed: make(chan struct{}),
		refs:  snapshot.NewTable(&b.counter),
		title: info.Title, url: info.URL, openerID: info.OpenerID,
		frames: map[string]*frame{}, worlds: map[string]*world{}, owners: map[ownerKey]int64{},
		worldLocks: map[string]*sync.Mutex{},
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

// evalIn evaluates expr in the world, awaiting a promise, and decodes the
// JSON value it returns into out (which may be nil).
func (t *Tab) evalIn(ctx context.Context, w *world, expr string, out any) error {
	res, err := cdpproto.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{
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

// unmarshalValue decodes a by-value remote object.
func unmarshalValue(o *runtime.RemoteObject, out any) error {
	if o == nil || len(o.Value) == 0 {
		return fmt.Errorf("page agent: no value")
	}
	return jsonv2.Unmarshal(o.Value, out)
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
