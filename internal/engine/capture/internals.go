package capture

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto/accessibility"
	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/world"
)

// Custom elements that declare their semantics through ElementInternals
// (internals.role = 'switch', internals.ariaChecked = 'true', with no
// attribute on the element) hold them where no script can read them: the
// page agent's walk, which reads attributes, would print them as generic
// containers. Chromium's accessibility tree has them, so the engine reads
// it, but only for the elements that need it (the page agent's side is
// internal/snapshot/js/25-internals.js):
//
//   - a walk lists the defined custom elements it met for the first time
//     (Page.AX); the engine asks Chromium about each and walks again with
//     the answers, which re-walks only those elements;
//   - the elements whose answer said something (a role, a name, a state)
//     are asked about again before every snapshot of their document and
//     the answers go with the walk, since internals change with no
//     mutation the agent could see: a changed answer re-walks its element,
//     so an incremental snapshot shows a switch a click turned on.
//
// A document without custom elements costs no protocol call more. The
// calls are Accessibility.getPartialAXTree for one element each, without
// its relatives, all sent at once in the session of the element's frame
// (so out-of-process frames are asked in their own renderer). Measured on
// a loaded 2-core machine: the fixture's 13 such elements, asked together,
// 3 to 6 ms; ten on the 5,000-row page, one after another, 8 to 15 ms,
// where a getFullAXTree or a queryAXTree of that document takes 4.5 to
// 5 s (fetchRelatives adds a node's ancestors and children, not its
// siblings: no call covers a group). The first call in a document has
// Chromium build its accessibility tree (about 250 ms on that page, a few
// ms on small ones), which it then keeps up to date for the life of the
// document.

// axAnswer is what Chromium's accessibility tree says of one element, in
// the terms the page agent reads: its role ("role") and the values of
// ARIA attributes ("aria-checked": "true", …) as Chromium computed them.
// Empty: nothing of its own.
type axAnswer map[string]string

// internals is what a surface keeps of its custom elements between
// snapshots: per frame, the elements whose answer said something, to ask
// about again, by their backend node id. Frames are captured
// concurrently, hence the lock.
type internals struct {
	mu     sync.Mutex
	frames map[string]*axFrame // by frame id
}

// axFrame is one document's tracked elements: agent element id to
// backend node id, in the agent's world of that document.
type axFrame struct {
	world int64
	elems map[int64]cdpproto.BackendNodeID
}

var internalsSlot = engine.NewSlot[internals]("capture.internals")

// internalsOf returns the surface's custom element state. Caller is in
// t.Exclusive.
func internalsOf(t *engine.Surface) *internals {
	if in := internalsSlot.Get(t); in != nil {
		return in
	}
	in := &internals{frames: map[string]*axFrame{}}
	internalsSlot.Set(t, in)
	return in
}

// maxAXRounds bounds the walks a capture makes again for custom elements
// met for the first time: a walk with the answers may meet new ones (a
// subtree that was folded into text before), rarely more.
const maxAXRounds = 2

// axConcurrency bounds the accessibility calls in flight per document.
const axConcurrency = 16

// before returns the answers to send with a walk of the frame: fresh ones
// for every element tracked in the frame's current document (nil when
// none is tracked, the usual case: no call is made).
func (in *internals) before(ctx context.Context, frameID string, w *world.World) map[int64]axAnswer {
	if in == nil {
		return nil
	}
	in.mu.Lock()
	f := in.frames[frameID]
	var elems map[int64]cdpproto.BackendNodeID
	if f != nil && f.world == w.ContextID() {
		elems = make(map[int64]cdpproto.BackendNodeID, len(f.elems))
		for e, b := range f.elems {
			elems[e] = b
		}
	}
	in.mu.Unlock()
	if len(elems) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(elems))
	for e := range elems {
		ids = append(ids, e)
	}
	answers := make(map[int64]axAnswer, len(ids))
	var gone []int64
	var mu sync.Mutex
	eachAX(ctx, len(ids), func(i int) {
		n, err := axNode(ctx, w, accessibility.GetPartialAXTreeParams{BackendNodeID: elems[ids[i]], FetchRelatives: ptr(false)})
		mu.Lock()
		defer mu.Unlock()
		var pe *cdp.Error
		switch {
		case err == nil:
			answers[ids[i]] = answerOf(n)
		case errors.As(err, &pe):
			// Chromium no longer knows the node: the element has gone.
			gone = append(gone, ids[i])
		}
	})
	in.forget(frameID, w.ContextID(), gone)
	return answers
}

// ask asks Chromium about elements a walk met for the first time (see
// askAX) and tracks those whose answer says something.
func (in *internals) ask(ctx context.Context, frameID string, w *world.World, elems []int64) map[int64]axAnswer {
	answers, backends := askAX(ctx, w, elems)
	if in != nil && len(backends) > 0 {
		in.mu.Lock()
		f := in.frames[frameID]
		if f == nil || f.world != w.ContextID() {
			f = &axFrame{world: w.ContextID(), elems: map[int64]cdpproto.BackendNodeID{}}
			in.frames[frameID] = f
		}
		for e, b := range backends {
			f.elems[e] = b
		}
		in.mu.Unlock()
	}
	return answers
}

// askAX asks Chromium about elements of a world by their element ids, and
// returns the answers and, for those that say something, the backend node
// id to ask by next time. Elements that are gone, or that could not be
// asked about, get no answer (the agent asks about them again when it
// walks them again).
func askAX(ctx context.Context, w *world.World, elems []int64) (map[int64]axAnswer, map[int64]cdpproto.BackendNodeID) {
	elems = slices.Compact(slices.Sorted(slices.Values(elems)))
	answers := make(map[int64]axAnswer, len(elems))
	backends := make(map[int64]cdpproto.BackendNodeID, len(elems))
	var mu sync.Mutex
	err := w.WithObjects(ctx, elems, func(objs []runtime.RemoteObjectID) error {
		eachAX(ctx, len(elems), func(i int) {
			if objs[i] == "" {
				return
			}
			n, err := axNode(ctx, w, accessibility.GetPartialAXTreeParams{ObjectID: objs[i], FetchRelatives: ptr(false)})
			if err != nil {
				return
			}
			a := answerOf(n)
			mu.Lock()
			defer mu.Unlock()
			answers[elems[i]] = a
			if len(a) > 0 && n != nil && n.BackendDOMNodeID != 0 {
				backends[elems[i]] = n.BackendDOMNodeID
			}
		})
		return nil
	})
	if err != nil {
		return nil, nil
	}
	return answers, backends
}

// forget stops tracking elements of a document that have gone.
func (in *internals) forget(frameID string, world int64, elems []int64) {
	if in == nil || len(elems) == 0 {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if f := in.frames[frameID]; f != nil && f.world == world {
		for _, e := range elems {
			delete(f.elems, e)
		}
	}
}

// retain forgets the frames whose tracked document is no longer their
// current one (the frame navigated or went away). Caller holds t.Lock.
func (in *internals) retain(t *engine.Surface) {
	if in == nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for id, f := range in.frames {
		if w := t.CurrentWorld(id); w == nil || w.ContextID() != f.world || len(f.elems) == 0 {
			delete(in.frames, id)
		}
	}
}

// eachAX runs fn(0..n-1), axConcurrency at a time: the calls are sent
// together and Chromium answers them one after another, so n of them
// cost about one round trip and n small computations.
func eachAX(ctx context.Context, n int, fn func(i int)) {
	sem := make(chan struct{}, axConcurrency)
	var wg sync.WaitGroup
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// axNode is Chromium's accessibility node of one element (nil when it has
// none: it is not rendered).
func axNode(ctx context.Context, w *world.World, p accessibility.GetPartialAXTreeParams) (*accessibility.Node, error) {
	res, err := cdpproto.Call(ctx, w.Session(), accessibility.GetPartialAXTree, p)
	if err != nil {
		return nil, err
	}
	for _, n := range res.Nodes {
		if p.BackendNodeID == 0 || n.BackendDOMNodeID == p.BackendNodeID {
			return n, nil
		}
	}
	return nil, nil
}

// answerOf puts an accessibility node in the agent's terms. The agent
// reads what it knows of these (roles it knows, the states it prints);
// an ignored node (aria-hidden, not rendered) says nothing.
func answerOf(n *accessibility.Node) axAnswer {
	a := axAnswer{}
	if n == nil || n.Ignored {
		return a
	}
	if n.Role != nil && n.Role.Type == accessibility.ValueTypeRole {
		if r := axText(n.Role.Value); r != "" && r != "generic" && r != "none" {
			a["role"] = r
		}
	}
	if l := authorName(n.Name); l != "" {
		a["aria-label"] = l
	}
	for _, p := range n.Properties {
		if p.Value == nil {
			continue
		}
		v := axText(p.Value.Value)
		switch p.Name {
		case accessibility.PropertyNameChecked, accessibility.PropertyNamePressed,
			accessibility.PropertyNameSelected, accessibility.PropertyNameExpanded:
			// "false" counts: a checkbox that says it is unchecked is a
			// checkbox to check.
			if v != "" {
				a["aria-"+string(p.Name)] = v
			}
		case accessibility.PropertyNameDisabled, accessibility.PropertyNameRequired, accessibility.PropertyNameReadonly:
			if v == "true" {
				a["aria-"+string(p.Name)] = v
			}
		case accessibility.PropertyNameInvalid:
			if v != "" && v != "false" {
				a["aria-invalid"] = v
			}
		case accessibility.PropertyNameLevel, accessibility.PropertyNameValuetext:
			if v != "" {
				a["aria-"+string(p.Name)] = v
			}
		}
	}
	if n.Value != nil {
		if v := axText(n.Value.Value); v != "" {
			a["aria-valuenow"] = v
		}
	}
	return a
}

// authorName is the accessible name when an author gave it (aria-label
// or aria-labelledby, set on the internals or on the element), "" when
// it comes from the content or elsewhere: the agent computes those
// itself, and knows which text it then leaves out.
func authorName(name *accessibility.Value) string {
	if name == nil {
		return ""
	}
	for _, s := range name.Sources {
		if s.Value == nil || s.Superseded {
			continue
		}
		if (s.Type == accessibility.ValueSourceTypeAttribute && s.Attribute == "aria-label") ||
			s.Type == accessibility.ValueSourceTypeRelatedElement {
			return axText(name.Value)
		}
		return ""
	}
	return ""
}

// axText gives a protocol value (a string, number or boolean) as text.
func axText(v jsonv2.Value) string {
	if len(v) == 0 {
		return ""
	}
	var x any
	if err := jsonv2.Unmarshal(v, &x); err != nil {
		return ""
	}
	switch x := x.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// RefreshInternals asks Chromium again what a custom element's internals
// say of it and hands the answer to its page agent, for a read of its
// state that must be current (a checkbox checked through its internals by
// the click a moment ago), and for the next walk, which re-walks it when
// the answer changed.
func RefreshInternals(ctx context.Context, w *world.World, elem int64) error {
	answers, _ := askAX(ctx, w, []int64{elem})
	if len(answers) == 0 {
		return nil // gone, or not to be asked: the agent's copy stands
	}
	var changed int
	return w.Call(ctx, "axSet", &changed, answers)
}

func ptr[T any](v T) *T { return &v }
