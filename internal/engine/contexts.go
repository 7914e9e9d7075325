package engine

import (
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Execution contexts, as Runtime reports them (Runtime.enable on every
// session), give three things:
//   - the frame of each context, so a console call names its surface;
//   - each frame's main-world context, for eval on a frame surface;
//   - each frame's agent world: Page.addScriptToEvaluateOnNewDocument
//     creates the agent's isolated world in every new document and
//     installs the agent there before the page's own scripts run, so the
//     first snapshot of a page does not wait for a world to be made
//     (Page.createIsolatedWorld took 7–32 ms here, the install 4–15 ms).
//
// A context lives exactly as long as its document: when Runtime says it is
// destroyed, everything that points at it goes, the agent's world included.

type ctxKey struct {
	sess *cdp.Session
	id   int64
}

type mainContext struct {
	sess *cdp.Session
	id   int64
	// origin is the origin the context's document runs with (see
	// effectiveOrigin).
	origin string
}

// contextMethods are the events onContextEvent handles.
var contextMethods = []string{
	"Runtime.executionContextCreated", "Runtime.executionContextDestroyed", "Runtime.executionContextsCleared",
}

// onContextEvent keeps the context tables. It runs on the reader
// goroutine, so a context is known before any reply that follows its
// creation.
func (t *Surface) onContextEvent(s *cdp.Session, ev cdp.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Method {
	case "Runtime.executionContextCreated":
		var e struct {
			Context struct {
				ID      int64  `json:"id"`
				Origin  string `json:"origin"`
				Name    string `json:"name"`
				AuxData struct {
					FrameID   string `json:"frameId"`
					IsDefault bool   `json:"isDefault"`
					Type      string `json:"type"`
				} `json:"auxData"`
			} `json:"context"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Context.AuxData.FrameID == "" {
			return
		}
		c, frame := e.Context, e.Context.AuxData.FrameID
		t.contexts[ctxKey{s, c.ID}] = frame
		switch {
		case c.AuxData.IsDefault:
			t.mainCtx[frame] = mainContext{sess: s, id: c.ID, origin: c.Origin}
		case c.AuxData.Type == "isolated" && c.Name == snapshot.WorldName:
			t.agentCtx[frame] = mainContext{sess: s, id: c.ID, origin: c.Origin}
		}
	case "Runtime.executionContextDestroyed":
		var e struct {
			ID int64 `json:"executionContextId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			t.dropContext(s, e.ID)
		}
	case "Runtime.executionContextsCleared":
		for k := range t.contexts {
			if k.sess == s {
				t.dropContext(s, k.id)
			}
		}
	}
}

// dropContext forgets a context and everything pointing at it. Caller
// holds t.mu.
func (t *Surface) dropContext(s *cdp.Session, id int64) {
	k := ctxKey{s, id}
	f, ok := t.contexts[k]
	if !ok {
		return
	}
	delete(t.contexts, k)
	if m := t.mainCtx[f]; m.sess == s && m.id == id {
		delete(t.mainCtx, f)
	}
	if a := t.agentCtx[f]; a.sess == s && a.id == id {
		delete(t.agentCtx, f)
	}
	if w := t.worlds[f]; w != nil && w.Is(s, id) {
		delete(t.worlds, f)
	}
}

// PageContext is where the page's own scripts run in the surface's root
// frame: the session that hosts it and its main world's execution context
// (0, the session's default, for a tab). A frame surface whose frame has
// gone is SURFACE_CLOSED; one with no document to run in yet (it is
// loading) is EVAL_FAILED, with the wait that recovers.
func (t *Surface) PageContext() (Session, int64, error) {
	if !t.IsFrame() {
		return t.Session(), 0, nil
	}
	// A frame's page world, in the session that hosts the frame now.
	t.mu.Lock()
	m, ok := t.mainCtx[t.root]
	f := t.frames[t.root]
	t.mu.Unlock()
	switch {
	case f == nil:
		return Session{}, 0, apitype.Errorf(apitype.SurfaceClosed, "frame surface %s has gone", t.ID)
	case !ok || f.sess != m.sess:
		return Session{}, 0, apitype.Errorf(apitype.EvalFailed, "frame surface %s has no document to evaluate in yet", t.ID).
			Fix("it is loading; wait for it ({1}) and try again", apitype.Step{Op: "wait", Args: map[string]string{"load": "true"}})
	}
	return t.wrap(m.sess), m.id, nil
}

// OriginRelation relates a frame surface's origin to its parent's, by the
// origins their documents run with (effectiveOrigin): "same-origin",
// "cross-origin" or "opaque". Chromium 156 reports an opaque origin
// (sandboxed frames, data: URLs) as "://"; "null" is accepted too. Before
// a frame's first commit its origin is unknown, and so is the relation
// (""); a page root has none.
func (t *Surface) OriginRelation() string {
	if !t.IsFrame() {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.frames[t.root]
	if f == nil {
		return ""
	}
	parent := t.frames[f.parent]
	o := t.effectiveOrigin(f)
	switch {
	case o == "://" || o == "null" || strings.HasPrefix(f.url, "data:"):
		return "opaque"
	case o == "" || parent == nil || t.effectiveOrigin(parent) == "":
		return ""
	case o == t.effectiveOrigin(parent):
		return "same-origin"
	}
	return "cross-origin"
}

// effectiveOrigin is the origin a frame's document runs with. Chromium's
// frame origin comes from the URL, so an about:blank or about:srcdoc
// document shows "://" even when it inherits its parent's origin (and
// with it, same-origin access to it); the document's execution contexts,
// in the session hosting the frame, carry the real one, still opaque when
// the frame is sandboxed. Until one appears, the URL's origin stands.
// Caller holds t.mu.
func (t *pageState) effectiveOrigin(f *frame) string {
	for _, c := range []map[string]mainContext{t.mainCtx, t.agentCtx} {
		if m, ok := c[f.id]; ok && m.sess == f.sess && m.origin != "" {
			return m.origin
		}
	}
	return f.origin
}
