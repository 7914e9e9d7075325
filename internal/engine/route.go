package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
)

// Routing: a node's DOM and Runtime calls go to the session that hosts its
// frame, in the agent's world of its document; input events go to the page
// session at top-level coordinates. A frame's viewport coordinates become
// its parent's by adding the content-box origin of its <iframe> (border and
// padding included, the parent's scroll already in the box), level by level
// up to the top, each level checking the point really lands on that iframe.

// ownerKey names a frame's <iframe> element as seen from one document of
// its parent.
type ownerKey struct {
	frame       string
	parentWorld int64
}

// frameOwner returns the agent's element id, in the parent frame's current
// world, of the <iframe> that holds frameID. It is cached per parent
// document: an iframe element keeps its frame for its life.
func (t *Tab) frameOwner(ctx context.Context, frameID, parentID string) (int64, error) {
	pw, err := t.world(ctx, parentID)
	if err != nil {
		return 0, err
	}
	key := ownerKey{frameID, pw.ctxID}
	t.mu.Lock()
	elem, ok := t.owners[key]
	t.mu.Unlock()
	if ok {
		return elem, nil
	}
	// The parent's session knows the owner (CDP-FACTS section 2).
	owner, err := cdpproto.Call(ctx, pw.sess, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdpproto.FrameID(frameID)})
	if err != nil {
		return 0, mapWorldErr(err)
	}
	obj, err := cdpproto.Call(ctx, pw.sess, dom.ResolveNode, dom.ResolveNodeParams{
		BackendNodeID: owner.BackendNodeID, ExecutionContextID: runtime.ExecutionContextID(pw.ctxID), ObjectGroup: "loupe",
	})
	if err != nil {
		return 0, mapWorldErr(err)
	}
	defer t.release(pw, obj.Object.ObjectID)
	res, err := cdpproto.Call(ctx, pw.sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function () { return __loupe.idOf(this); }", ObjectID: obj.Object.ObjectID, ReturnByValue: ptr(true),
	})
	if err != nil {
		return 0, mapWorldErr(err)
	}
	if res.ExceptionDetails != nil {
		return 0, fmt.Errorf("page agent: %s", res.ExceptionDetails.Text)
	}
	if err := unmarshalValue(res.Result, &elem); err != nil {
		return 0, err
	}
	t.mu.Lock()
	t.owners[key] = elem
	t.mu.Unlock()
	return elem, nil
}

func (t *Tab) release(w *world, id runtime.RemoteObjectID) {
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _ = cdpproto.Call(ctx, w.sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: id})
}

// objectOf returns a remote object for the element, for DOM domain calls
// (scroll, focus, file inputs, describeNode). Release it with t.release.
func (t *Tab) objectOf(ctx context.Context, w *world, elem int64) (runtime.RemoteObjectID, error) {
	res, err := cdpproto.Call(ctx, w.sess, runtime.Evaluate, runtime.EvaluateParams{
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

// toTop turns a point in a frame's viewport into top-level viewport
// coordinates. With hit, each level checks the point lands on the frame's
// iframe (nothing in the parent covers it).
func (t *Tab) toTop(ctx context.Context, ref, frameID string, x, y float64, hit bool) (float64, float64, error) {
	for id := frameID; id != t.TargetID; {
		f, ok := t.frameState(id)
		if !ok || f.parent == "" {
			return 0, 0, staleErr(ref, "its frame is gone")
		}
		owner, err := t.frameOwner(ctx, id, f.parent)
		if err != nil {
			return 0, 0, t.docErr(ref, err)
		}
		pw, err := t.world(ctx, f.parent)
		if err != nil {
			return 0, 0, t.docErr(ref, err)
		}
		var r agentResult
		if err := t.agentCall(ctx, pw, "frameOffset", &r, owner, x, y, hit); err != nil {
			return 0, 0, t.docErr(ref, err)
		}
		if err := r.check(ref); err != nil {
			return 0, 0, err
		}
		x, y, id = r.X, r.Y, f.parent
	}
	return x, y, nil
}

// scrollInto scrolls an element in a subframe into view through the
// protocol, which scrolls every ancestor, across processes too (the page
// agent in a cross-site frame may not scroll its parent).
func (t *Tab) scrollInto(ctx context.Context, tg *resolved) error {
	obj, err := t.objectOf(ctx, tg.w, tg.elem)
	if err != nil {
		return t.docErr(tg.ref, err)
	}
	defer t.release(tg.w, obj)
	// An element without a box cannot scroll; prepare reports it hidden.
	_, _ = cdpproto.Call(ctx, tg.w.sess, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{ObjectID: obj})
	return nil
}

// focusNode focuses an element in a subframe through the protocol, which
// also focuses its frame (a cross-site frame may not take focus from
// script).
func (t *Tab) focusNode(ctx context.Context, tg *resolved) error {
	obj, err := t.objectOf(ctx, tg.w, tg.elem)
	if err != nil {
		return t.docErr(tg.ref, err)
	}
	defer t.release(tg.w, obj)
	_, _ = cdpproto.Call(ctx, tg.w.sess, dom.Focus, dom.FocusParams{ObjectID: obj})
	return nil
}

// fillBackendIDs looks up the DOM backend node id of every ref that does not
// have one yet, per document and concurrently, and caches it on the ref.
// Caller holds t.op.
func (t *Tab) fillBackendIDs(ctx context.Context, out *Snapshot) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	sem := make(chan struct{}, 16)
	for i := range out.Refs {
		ri := &out.Refs[i]
		if ri.BackendNodeID != 0 {
			continue
		}
		b, ok := t.refs.Lookup(ri.Ref)
		if !ok {
			continue
		}
		w := t.currentWorld(b.Doc.Frame)
		if w == nil || w.ctxID != b.Doc.World {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			obj, err := t.objectOf(ctx, w, b.Elem)
			if err != nil {
				return
			}
			defer t.release(w, obj)
			node, err := cdpproto.Call(ctx, w.sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
			if err != nil || node.Node == nil {
				return
			}
			mu.Lock()
			b.BackendNodeID = int64(node.Node.BackendNodeID)
			ri.BackendNodeID = b.BackendNodeID
			mu.Unlock()
		}()
	}
	wg.Wait()
}
