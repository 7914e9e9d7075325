package engine

import (
	"context"
	"fmt"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/engine/world"
)

// Routing: a node's DOM and Runtime calls go to the session that hosts its
// frame, in the agent's world of its document; input events go to the page
// session at top-level coordinates, which package action works out level
// by level from each frame's <iframe> element (FrameOwner).

// ownerKey names a frame's <iframe> element as seen from one document of
// its parent.
type ownerKey struct {
	frame       string
	parentWorld int64
}

// FrameOwner returns the agent's element id, in the parent frame's current
// world, of the <iframe> that holds frameID. It is cached per parent
// document: an iframe element keeps its frame for its life.
func (t *Surface) FrameOwner(ctx context.Context, frameID, parentID string) (int64, error) {
	pw, err := t.World(ctx, parentID)
	if err != nil {
		return 0, err
	}
	key := ownerKey{frameID, pw.ContextID()}
	t.mu.Lock()
	elem, ok := t.owners[key]
	t.mu.Unlock()
	if ok {
		return elem, nil
	}
	// The parent's session knows the owner (CDP-FACTS section 2).
	owner, err := cdpproto.Call(ctx, pw.Session(), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdpproto.FrameID(frameID)})
	if err != nil {
		return 0, world.MapErr(err)
	}
	obj, err := cdpproto.Call(ctx, pw.Session(), dom.ResolveNode, dom.ResolveNodeParams{
		BackendNodeID: owner.BackendNodeID, ExecutionContextID: pw.ProtocolID(), ObjectGroup: "loupe",
	})
	if err != nil {
		return 0, world.MapErr(err)
	}
	defer pw.Release(obj.Object.ObjectID)
	res, err := cdpproto.Call(ctx, pw.Session(), runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function () { return __loupe.idOf(this); }", ObjectID: obj.Object.ObjectID, ReturnByValue: ptr(true),
	})
	if err != nil {
		return 0, world.MapErr(err)
	}
	if res.ExceptionDetails != nil {
		return 0, fmt.Errorf("page agent: %s", res.ExceptionDetails.Text)
	}
	if err := world.Value(res.Result, &elem); err != nil {
		return 0, err
	}
	t.mu.Lock()
	t.owners[key] = elem
	t.mu.Unlock()
	return elem, nil
}
