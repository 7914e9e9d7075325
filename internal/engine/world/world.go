// Package world is the agent's isolated world in one document of a frame:
// where the page agent (internal/snapshot/js) runs, apart from the page's
// own scripts. The engine makes worlds (Surface.World) and knows when
// their documents go; a World only calls into its document, and once that
// document has gone its calls fail with ErrDocumentGone.
package world

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// ErrDocumentGone means the document a call was aimed at went away (it
// navigated, its frame detached, its renderer crashed).
var ErrDocumentGone = errors.New("document went away")

// World is the agent's world in one document. Get one from the engine
// (Surface.World).
type World struct {
	sess   cdpproto.Session // calls, failing fast once the renderer has crashed
	raw    *cdp.Session     // the session itself, which names the host
	frame  string
	ctxID  int64
	loader string
	gen    int64 // the incarnation of sess's renderer it was made in
}

// New describes the agent's world with execution context ctxID in the
// document loader of frame, hosted by raw (whose calls go through sess),
// made in the gen'th incarnation of raw's renderer.
func New(sess cdpproto.Session, raw *cdp.Session, frame string, ctxID int64, loader string, gen int64) *World {
	return &World{sess: sess, raw: raw, frame: frame, ctxID: ctxID, loader: loader, gen: gen}
}

// In reports whether the world is hosted by session s.
func (w *World) In(s *cdp.Session) bool { return w.raw == s }

// Is reports whether the world is execution context id of session s.
func (w *World) Is(s *cdp.Session, id int64) bool { return w.raw == s && w.ctxID == id }

// ProtocolID is the world's execution context id as its session knows it,
// for protocol calls that name the context.
func (w *World) ProtocolID() runtime.ExecutionContextID { return runtime.ExecutionContextID(w.ctxID) }

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
func (w *World) Session() cdpproto.Session { return w.sess }

// Eval evaluates expr in the world, awaiting a promise, and decodes the
// JSON value it returns into out (which may be nil).
func (w *World) Eval(ctx context.Context, expr string, out any) error {
	res, err := cdpproto.Call(ctx, w.Session(), runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: w.ProtocolID(),
		ReturnByValue: new(true), AwaitPromise: new(true), Silent: new(true),
	})
	if err != nil {
		return MapErr(err)
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
	defer w.Release(obj)
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
		Expression: "__loupe.els(" + string(js) + ")", ContextID: w.ProtocolID(), ObjectGroup: group,
	})
	if err != nil {
		return MapErr(err)
	}
	if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return ErrDocumentGone
	}
	props, err := cdpproto.Call(ctx, w.Session(), runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: new(true)})
	if err != nil {
		return MapErr(err)
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
		Expression: fmt.Sprintf("__loupe.byId(%d)", elem), ContextID: w.ProtocolID(), ObjectGroup: "loupe",
	})
	if err != nil {
		return "", MapErr(err)
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return "", ErrDocumentGone
	}
	return res.Result.ObjectID, nil
}

// Value decodes a by-value remote object into out.
func Value(o *runtime.RemoteObject, out any) error {
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

// Release frees a remote object of the world's.
func (w *World) Release(id runtime.RemoteObjectID) {
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = cdpproto.Call(ctx, w.Session(), runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: id})
}

// MapErr makes the protocol's ways of saying a document has gone
// ErrDocumentGone.
func MapErr(err error) error {
	var ce *cdp.Error
	if errors.As(err, &ce) && (strings.Contains(ce.Message, "Cannot find context") ||
		strings.Contains(ce.Message, "No frame") || strings.Contains(ce.Message, "Frame with the given") ||
		strings.Contains(ce.Message, "Execution context was destroyed")) {
		return fmt.Errorf("%w: %v", ErrDocumentGone, err)
	}
	if errors.Is(err, cdp.ErrSessionGone) {
		return fmt.Errorf("%w: %v", ErrDocumentGone, err)
	}
	return err
}
