package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// World is the agent's isolated world in one document of a frame: where
// the page agent (internal/snapshot/js) runs, apart from the page's own
// scripts. A World belongs to one document; once that document has gone,
// calls in it fail with ErrDocumentGone. Get one with Tab.World.
type World struct {
	frame  string
	ctxID  int64
	loader string
	sess   *cdp.Session
	p      *pageState
	gen    int64 // the incarnation of sess's renderer it was made in
}

// newWorld describes the agent's world in a frame's document, made in the
// current incarnation of the renderer that hosts the frame.
func (p *pageState) newWorld(f frame, ctxID int64) *World {
	w := &World{frame: f.id, ctxID: ctxID, loader: f.loader, sess: f.sess, p: p}
	if inc := p.incarnationOf(f.sess); inc != nil {
		w.gen = inc.gen
	}
	return w
}

// Frame is the id of the frame whose document the world is in.
func (w *World) Frame() string { return w.frame }

// ContextID is the world's execution context id. It names the document
// too: refs are bound to it (snapshot.Doc.World). A renderer that starts
// after a crash numbers its contexts from 1 again, so from the session's
// second renderer on the incarnation is added in the high 32 bits: a ref of
// the crashed document never names a world of the reloaded one. (While
// the first renderer lives, it is the protocol's id as it is.)
func (w *World) ContextID() int64 { return w.gen<<32 | w.ctxID }

// Document is the loader id of the world's document, as FrameInfo.Document
// gives the frame's current one.
func (w *World) Document() string { return w.loader }

// Session is the session that hosts the world's frame: DOM and Runtime
// calls for its nodes go there. Its calls fail fast once the renderer
// behind it has crashed.
func (w *World) Session() Session { return w.p.wrap(w.sess) }

// Eval evaluates expr in the world, awaiting a promise, and decodes the
// JSON value it returns into out (which may be nil).
func (w *World) Eval(ctx context.Context, expr string, out any) error {
	res, err := cdpproto.Call(ctx, w.Session(), runtime.Evaluate, runtime.EvaluateParams{
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

// Call runs one page agent function in the world, fn(args...), each
// argument passed as JSON, and decodes its JSON result into out.
func (w *World) Call(ctx context.Context, fn string, out any, args ...any) error {
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
	return w.Eval(ctx, b.String(), out)
}

// WithObject calls fn with a remote object for one of the world's elements
// (by the agent's element id), for DOM domain calls on it in w.Session(),
// and releases the object afterwards. The element's document having gone
// is ErrDocumentGone.
func (w *World) WithObject(ctx context.Context, elem int64, fn func(obj runtime.RemoteObjectID) error) error {
	obj, err := w.objectOf(ctx, elem)
	if err != nil {
		return err
	}
	defer w.release(obj)
	return fn(obj)
}

// WithObjects calls fn with remote objects for several of the world's
// elements at once (by the agent's element ids; "" for one that is gone),
// for protocol calls on each, and releases them all afterwards: three
// round trips whatever their number, where WithObject would take two per
// element.
func (w *World) WithObjects(ctx context.Context, elems []int64, fn func(objs []runtime.RemoteObjectID) error) error {
	js, err := jsonv2.Marshal(elems)
	if err != nil {
		return err
	}
	// A group of its own: concurrent calls in frames that share a session
	// must not release each other's objects.
	group := "loupe-objs-" + strconv.FormatInt(objectGroups.Add(1), 10)
	defer func() {
		_, _ = cdpproto.Call(context.WithoutCancel(ctx), w.Session(), runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
	}()
	res, err := cdpproto.Call(ctx, w.Session(), runtime.Evaluate, runtime.EvaluateParams{
		Expression: "__loupe.els(" + string(js) + ")", ContextID: runtime.ExecutionContextID(w.ctxID), ObjectGroup: group,
	})
	if err != nil {
		return mapWorldErr(err)
	}
	if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return ErrDocumentGone
	}
	props, err := cdpproto.Call(ctx, w.Session(), runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: ptr(true)})
	if err != nil {
		return mapWorldErr(err)
	}
	objs := make([]runtime.RemoteObjectID, len(elems))
	for _, p := range props.Result {
		i, err := strconv.Atoi(p.Name)
		if err != nil || i < 0 || i >= len(objs) || p.Value == nil {
			continue
		}
		objs[i] = p.Value.ObjectID
	}
	return fn(objs)
}

// objectGroups numbers WithObjects' object groups.
var objectGroups atomic.Int64

// objectOf returns a remote object for the element. Release it with
// w.release.
func (w *World) objectOf(ctx context.Context, elem int64) (runtime.RemoteObjectID, error) {
	res, err := cdpproto.Call(ctx, w.Session(), runtime.Evaluate, runtime.EvaluateParams{
		Expression: fmt.Sprintf("__loupe.byId(%d)", elem), ContextID: runtime.ExecutionContextID(w.ctxID), ObjectGroup: "loupe",
	})
	if err != nil {
		return "", mapWorldErr(err)
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return "", ErrDocumentGone
	}
	return res.Result.ObjectID, nil
}

// unmarshalValue decodes a by-value remote object.
func unmarshalValue(o *runtime.RemoteObject, out any) error {
	if o == nil || len(o.Value) == 0 {
		return fmt.Errorf("page agent: no value")
	}
	return jsonv2.Unmarshal(o.Value, out)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
