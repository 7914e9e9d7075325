package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/popups"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// A tab's frames live in one or more renderer processes. The page session
// hosts the top frame and every frame in its process; each out-of-process
// iframe (OOPIF) is a local root with its own flattened session, attached
// automatically and paused until set up, and hosts the frames of its own
// process below it. The frame table records, for every frame, the session
// that hosts it: all DOM and Runtime calls for a node go to that session.
//
// The table is kept by taps (see cdp.Session.Tap), so it is current as of
// any reply. Rules, from Chromium 156's behaviour (CDP-FACTS section 5):
//   - frameNavigated: a new document; the frame's worlds and its whole
//     subtree are gone (child frames come back with new ids);
//   - frameDetached{remove}: the frame and its subtree are gone;
//   - frameDetached{swap}: the frame moved to another process; it stays,
//     its world does not, and the session that now hosts it claims it;
//   - a detached session takes the frames it hosted with it (its
//     descendants' sessions vanish silently, cdp drops them).
type frame struct {
	id, parent, loader, url string
	origin                  string // security origin of its document; "null" when opaque
	sess                    *cdp.Session
	// navigating is set from when a navigation of the frame to a new
	// document is requested until it commits or stops (a 204, a
	// download): the document that has refs now is about to go.
	navigating bool
}

// setup sets the page session up and resumes the page if it was paused at
// attach.
func (t *Surface) setup(ctx context.Context, waiting bool) {
	defer close(t.ready)
	t.setupErr = t.attachSession(ctx, t.sess, waiting)
}

// attachSession subscribes to a session (the page's or an OOPIF's), makes
// it auto-attach the OOPIFs below it, records its frames, and resumes it.
func (t *Surface) attachSession(ctx context.Context, s *cdp.Session, waiting bool) error {
	t.trackCrashes(s)
	s.Tap(func(ev cdp.Event) { t.onFrameEvent(s, ev) },
		"Page.frameNavigated", "Page.frameAttached", "Page.frameDetached", "Page.navigatedWithinDocument",
		"Page.frameRequestedNavigation", "Page.frameStartedNavigating", "Page.frameStoppedLoading",
		"Target.attachedToTarget", "Target.detachedFromTarget")
	s.Tap(func(ev cdp.Event) { t.onContextEvent(s, ev) }, contextMethods...)
	s.Tap(func(ev cdp.Event) { t.recordEvents(s, ev) }, eventlog.Methods...)
	s.Tap(func(ev cdp.Event) { t.b.popups.Told(t.TargetID, ev.Params) }, "Page.windowOpen")
	events, cancel := s.Listen("Page.javascriptDialogOpening", "Page.javascriptDialogClosed", "Target.attachedToTarget")
	t.b.wg.Add(1)
	go func() {
		defer t.b.wg.Done()
		defer cancel()
		t.sessionLoop(ctx, s, events)
	}()
	calls := []SetupCall{
		{Method: "Page.enable"},
		{Method: "Page.setLifecycleEventsEnabled", Params: map[string]bool{"enabled": true}},
		// Runtime and Network feed the event log and give each frame's
		// main-world context (for eval on a frame surface).
		{Method: "Runtime.enable"},
		{Method: "Network.enable"},
		// Crash reports (Inspector.targetCrashed) came without it on
		// Chromium 156, but the protocol ties them to the domain.
		{Method: "Inspector.enable"},
		// Every page acts as the focused one, as a person's front tab
		// does. Without it the first click into a page that the browser
		// has not focused yet also focuses the page, asynchronously: under
		// load that arrived after a click in an out-of-process frame had
		// focused its field, moved focus back to the top frame and sent
		// the next keys nowhere. Background tabs keep focus and
		// :focus-visible too, which is what an agent acting on them wants.
		{Method: "Emulation.setFocusEmulationEnabled", Params: map[string]bool{"enabled": true}},
		// The agent's world in every new document, made as the document
		// is (see contexts.go).
		{Method: "Page.addScriptToEvaluateOnNewDocument", Params: map[string]string{"source": snapshot.AgentScript(), "worldName": snapshot.WorldName}},
		{Method: "Target.setAutoAttach", Params: target.SetAutoAttachParams{
			AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: ptr(true), Filter: target.Filter{{Type: "iframe"}, {Type: "worker"}},
		}},
	}
	if t.b.popups != nil {
		// The shell's popup blocker, in the page's world (package popups).
		calls = append(calls, cdp.Command{Method: "Page.addScriptToEvaluateOnNewDocument", Params: map[string]string{"source": popups.Script}})
	}
	for _, h := range t.b.hooks {
		calls = append(calls, h(t.tab, t.wrap(s))...)
	}
	// One round trip for all; a paused target is resumed by the last call,
	// sent after the others, not after their replies: a noopener popup has
	// no renderer, so no replies, until it runs. In order, the domains are
	// on before its document starts.
	var tree page.GetFrameTreeResult
	calls = append(calls, cdp.Command{Method: page.GetFrameTree.Method, Params: cdpproto.Empty{}, Result: &tree})
	if waiting {
		calls = append(calls, cdp.Command{Method: "Runtime.runIfWaitingForDebugger"})
	}
	if err := errors.Join(s.Batch(ctx, calls...)...); err != nil {
		return err
	}
	t.mu.Lock()
	var add func(ft *page.FrameTree, parent string)
	add = func(ft *page.FrameTree, parent string) {
		f := ft.Frame
		id := string(f.ID)
		old := t.frames[id]
		if old != nil && old.sess == s && old.loader != "" && old.loader != string(f.LoaderID) {
			// Events of a document newer than the tree (the page was
			// resumed in the batch): the tree's frame and children are old.
			return
		}
		if parent == "" && old != nil {
			parent = old.parent // an OOPIF root: its parent is in another session
		}
		t.frames[id] = &frame{id: id, parent: parent, loader: string(f.LoaderID), url: f.URL + f.URLFragment, origin: f.SecurityOrigin, sess: s}
		t.frameSurface(id)
		for _, c := range ft.ChildFrames {
			add(c, id)
		}
	}
	add(tree.FrameTree, string(tree.FrameTree.Frame.ParentID))
	t.mu.Unlock()
	return nil
}

// sessionLoop sets up OOPIF sessions as they attach and answers JavaScript
// dialogs at once, by the session's policy, so they never block the page an
// agent drives.
func (t *Surface) sessionLoop(ctx context.Context, s *cdp.Session, events <-chan cdp.Event) {
	var flood eventlog.FloodMeter
	for ev := range events {
		switch ev.Method {
		case "Page.javascriptDialogOpening":
			t.answerDialog(ctx, s, ev, &flood)
		case "Page.javascriptDialogClosed":
			t.held.Release(s)
		case "Target.attachedToTarget":
			var e targetEvent
			if jsonv2.Unmarshal(ev.Params, &e) != nil || (e.TargetInfo.Type != "iframe" && e.TargetInfo.Type != "worker") {
				continue
			}
			child := s.Conn().Session(e.SessionID)
			if child == nil {
				continue
			}
			if e.TargetInfo.Type == "worker" {
				t.b.wg.Add(1)
				go func() {
					defer t.b.wg.Done()
					t.attachWorker(ctx, child, e.Waiting)
				}()
				continue
			}
			t.b.wg.Add(1)
			go func() {
				defer t.b.wg.Done()
				// A frame that fails to set up shows as unreadable in
				// snapshots; the tab itself is unaffected.
				_ = t.attachSession(ctx, child, e.Waiting)
			}()
		}
	}
}

// onFrameEvent keeps the frame table current. It runs on the reader
// goroutine (see cdp.Session.Tap).
func (t *Surface) onFrameEvent(s *cdp.Session, ev cdp.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Method {
	case "Page.frameNavigated":
		var e struct {
			Frame struct {
				ID             string `json:"id"`
				ParentID       string `json:"parentId"`
				LoaderID       string `json:"loaderId"`
				URL            string `json:"url"`
				URLFragment    string `json:"urlFragment"`
				SecurityOrigin string `json:"securityOrigin"`
			} `json:"frame"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		f := e.Frame
		parent := f.ParentID
		if old := t.frames[f.ID]; old != nil && parent == "" {
			parent = old.parent
		}
		// A new document: its worlds and its descendants are gone.
		t.dropDescendants(f.ID)
		delete(t.worlds, f.ID)
		t.frames[f.ID] = &frame{id: f.ID, parent: parent, loader: f.LoaderID, url: f.URL + f.URLFragment, origin: f.SecurityOrigin, sess: s}
		t.frameSurface(f.ID)
		t.committed(s, f.ID)
		if f.ParentID == "" {
			t.held.Release(s) // the held dialog's document is gone
		}
		if f.ID == t.TargetID {
			t.url = f.URL + f.URLFragment
		}
	case "Page.frameAttached":
		var e struct {
			FrameID       string `json:"frameId"`
			ParentFrameID string `json:"parentFrameId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			if old, ok := t.frames[e.FrameID]; !ok || old.sess != s {
				t.frames[e.FrameID] = &frame{id: e.FrameID, parent: e.ParentFrameID, sess: s}
				delete(t.worlds, e.FrameID)
			}
			t.frameSurface(e.FrameID)
		}
	case "Page.frameDetached":
		var e struct {
			FrameID string `json:"frameId"`
			Reason  string `json:"reason"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		f := t.frames[e.FrameID]
		if e.Reason == "swap" {
			// Moving to another process: the session that hosts it
			// next claims it (its attach may come first).
			if f != nil && f.sess == s {
				delete(t.worlds, e.FrameID)
			}
			return
		}
		t.dropDescendants(e.FrameID)
		t.forget(e.FrameID)
	case "Page.frameRequestedNavigation", "Page.frameStartedNavigating", "Page.frameStoppedLoading":
		var e struct {
			FrameID        string `json:"frameId"`
			Disposition    string `json:"disposition"`
			NavigationType string `json:"navigationType"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		f := t.frames[e.FrameID]
		if f == nil {
			return
		}
		switch {
		case ev.Method == "Page.frameStoppedLoading":
			f.navigating = false
			if e.FrameID == t.TargetID && t.b != nil {
				t.b.tellTab(TabChanged, t, f.url, t.title)
			}
		case e.Disposition != "" && e.Disposition != "currentTab":
			// Opens elsewhere (a new tab or window): this frame stays.
		case strings.HasPrefix(e.NavigationType, "sameDocument"):
		default:
			f.navigating = true
		}
	case "Page.navigatedWithinDocument":
		var e struct {
			FrameID string `json:"frameId"`
			URL     string `json:"url"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			if f := t.frames[e.FrameID]; f != nil {
				f.navigating = false
				f.url = e.URL
				if f.id == t.TargetID {
					t.url = e.URL
				}
			}
		}
	case "Target.attachedToTarget":
		var e targetEvent
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo.Type != "iframe" {
			return
		}
		child := s.Conn().Session(e.SessionID)
		if child == nil {
			return
		}
		// An OOPIF's target id is its frame id.
		id := e.TargetInfo.TargetID
		f := t.frames[id]
		if f == nil {
			f = &frame{id: id}
			t.frames[id] = f
		}
		if e.TargetInfo.ParentFrameID != "" {
			f.parent = e.TargetInfo.ParentFrameID
		}
		f.sess = child
		delete(t.worlds, id)
		t.frameSurface(id)
	case "Target.detachedFromTarget":
		var e struct {
			SessionID string `json:"sessionId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		for cs := range t.incs {
			if cs.ID() == e.SessionID {
				delete(t.incs, cs)
			}
		}
		// The frames the session hosted go with it, except its local
		// root: an OOPIF that navigates back to its parent's site detaches
		// and its parent's session attaches the same frame again (no
		// frameDetached). Until then it has no session, so nothing can run
		// in it; a removed iframe was forgotten by frameDetached first.
		for id, f := range t.frames {
			if f.sess == nil || f.sess.ID() != e.SessionID {
				continue
			}
			t.dropDescendants(id)
			if p := t.frames[f.parent]; p != nil && p.sess != f.sess {
				f.sess, f.loader = nil, ""
				delete(t.worlds, id)
				continue
			}
			t.forget(id)
		}
	}
}

// dropDescendants forgets the frames below id. Caller holds t.mu.
func (t *Surface) dropDescendants(id string) {
	for fid, f := range t.frames {
		if f.parent == id && fid != id {
			t.dropDescendants(fid)
			t.forget(fid)
		}
	}
}

// forget drops a frame and what hangs off it. Caller holds t.mu.
func (t *Surface) forget(id string) {
	delete(t.frames, id)
	delete(t.worlds, id)
	delete(t.worldLocks, id)
	if s := t.frameSurf[id]; s != nil {
		t.frameTombs[s.ID] = true
		t.pastSurf[id] = s.ID
		delete(t.frameSurf, id)
	}
	for k := range t.owners {
		if k.frame == id {
			delete(t.owners, k)
		}
	}
}

func (t *Surface) frameState(id string) (frame, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.frames[id]
	if !ok || f.sess == nil {
		return frame{}, false
	}
	select {
	case <-f.sess.Done():
		return frame{}, false
	default:
	}
	return *f, true
}

// FrameInfo is what the frame table knows of one frame now.
type FrameInfo struct {
	ID, Parent string
	URL        string
	Document   string  // the loader id of its current document
	Session    Session // the session that hosts it
}

// Frame describes a frame of the page that has a live session now.
func (t *Surface) Frame(id string) (FrameInfo, bool) {
	f, ok := t.frameState(id)
	if !ok {
		return FrameInfo{}, false
	}
	return FrameInfo{ID: f.id, Parent: f.parent, URL: f.url, Document: f.loader, Session: t.wrap(f.sess)}, true
}

// ChildFrames returns the ids of the frames whose parent is id.
func (t *Surface) ChildFrames(id string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for fid, f := range t.frames {
		if f.parent == id && fid != id {
			out = append(out, fid)
		}
	}
	slices.Sort(out) // the same frames in the same order, call after call
	return out
}

// FrameDepth is the number of frames above id (0 for the top frame).
func (t *Surface) FrameDepth(id string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	d := 0
	for f := t.frames[id]; f != nil && f.parent != "" && d < 64; f = t.frames[f.parent] {
		d++
	}
	return d
}

// CurrentWorld returns the agent's world in the frame's current document,
// or nil if there is none yet (or the document changed since). It makes no
// protocol call.
func (t *Surface) CurrentWorld(frameID string) *world.World {
	t.mu.Lock()
	defer t.mu.Unlock()
	w, f := t.worlds[frameID], t.frames[frameID]
	if w == nil || f == nil || w.Document() != f.loader || !w.In(f.sess) {
		return nil
	}
	return w
}

// World returns the agent's world in the frame's current document, creating
// it in the session that hosts the frame and installing the agent on first
// use. Worlds of different frames may be created concurrently; refs of a
// document that went away are dropped by the next snapshot (under Lock).
func (t *Surface) World(ctx context.Context, frameID string) (*world.World, error) {
	if w := t.CurrentWorld(frameID); w != nil {
		return w, nil
	}
	t.mu.Lock()
	l := t.worldLocks[frameID]
	if l == nil {
		l = &sync.Mutex{}
		t.worldLocks[frameID] = l
	}
	t.mu.Unlock()
	l.Lock()
	defer l.Unlock()
	if w := t.CurrentWorld(frameID); w != nil {
		return w, nil // made while we waited
	}
	f, ok := t.frameState(frameID)
	if !ok {
		return nil, ErrDocumentGone
	}
	if w, err := t.agentWorld(ctx, f); w != nil || err != nil {
		return w, err
	}
	res, err := cdpproto.Call(ctx, t.wrap(f.sess), page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: cdpproto.FrameID(frameID), WorldName: snapshot.WorldName, GrantUniveralAccess: ptr(false),
	})
	if err != nil {
		return nil, world.MapErr(err)
	}
	// The reply follows every event sent before it, and taps have applied
	// them: the frame's loader is the document the world was made in.
	f2, ok := t.frameState(frameID)
	if !ok || f2.sess != f.sess {
		return nil, ErrDocumentGone
	}
	w := t.newWorld(f2, int64(res.ExecutionContextID))
	var installed bool
	if err := w.Eval(ctx, snapshot.AgentScript(), &installed); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.worlds[frameID] = w
	t.mu.Unlock()
	return w, nil
}

// Navigating reports whether the frame, or a frame above it, is navigating
// to a new document: input sent now could land in the next document.
func (t *Surface) Navigating(frameID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for f, d := t.frames[frameID], 0; f != nil && d < 64; f, d = t.frames[f.parent], d+1 {
		if f.navigating {
			return true
		}
	}
	return false
}

// agentWorld returns the agent's world that was made with the frame's
// current document, if there is one (nil, nil when not: a document that
// existed before loupe attached). Its context is alive, so it belongs to
// the current document: contexts of a document that went away are dropped
// as Runtime reports them destroyed.
func (t *Surface) agentWorld(ctx context.Context, f frame) (*world.World, error) {
	t.mu.Lock()
	a, ok := t.agentCtx[f.id]
	t.mu.Unlock()
	if !ok || a.sess != f.sess {
		return nil, nil
	}
	w := t.newWorld(f, a.id)
	// The agent was installed as the document was created; confirm it
	// (one short call), and install it if that somehow did not happen.
	var installed bool
	err := w.Eval(ctx, "!!globalThis.__loupe", &installed)
	if err == nil && !installed {
		err = w.Eval(ctx, snapshot.AgentScript(), &installed)
	}
	if err != nil {
		if errors.Is(err, ErrDocumentGone) {
			return nil, nil // raced with its document going: make one below
		}
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if a2, ok := t.agentCtx[f.id]; !ok || a2 != a {
		return nil, nil // destroyed meanwhile
	}
	t.worlds[f.id] = w
	return w, nil
}
