package capture

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Stable locators. After a snapshot binds its refs, assignLocators gives
// each ref a locator (see locator.Locator) that, at that moment, matches
// exactly that ref's element on the whole surface, every frame included;
// where none can be proven, the ref has none. locate resolves a locator
// across the surface, for verbs given a locator instead of a ref and for
// stale refs that look for their element in the new document
// (similarRefs).
//
// A locator is chosen in this order, the first that is valid winning:
//
//  1. testid=V   the element's own data-testid, unique in its document;
//  2. role=R[name="N"]  its role and a non-empty name, unique among the
//     nodes the snapshot shows (counted here, from the captured trees);
//  3. #ID        its id, unique in its document;
//  4. css=PATH   a tag:nth-of-type chain from the nearest ancestor with a
//     unique id, or from :root (unique in its document by construction).
//
// Validity is surface-wide. Role and name are counted over every captured
// frame. For the top document's testid, id and CSS candidates, every other
// frame is asked whether the selector matches anything there. A candidate
// of a subframe that is unique in its own frame but not known to be unique
// on the surface is prefixed with the frame path: the locator of the
// frame's <iframe> in its parent, then ">>" (role and name unprefixed when
// unique on the whole surface; testid, id and CSS always prefixed in
// subframes). The top document has no frame path: a candidate of its that
// also matches in a subframe is dropped, and with none left the ref has no
// locator.
//
// Cost: one agent call per frame (locatorInfo with all of that frame's
// refs). The top frame is asked first, then all subframes at once, since
// they check the top frame's candidates. A frame whose document is as the
// walk its last answer was for (the same walk number) is not asked again
// the same question: the answer is kept (kept.locatorInfo): a change of text alone asks nothing.
//
// Partial or incomplete captures: the counts need the whole surface. When
// any frame was captured partially (scope, viewport), could not be
// captured, or exists but was not captured (beyond the frame depth limit,
// or attached since), assignLocators changes nothing: each binding keeps
// the locator an earlier complete snapshot of the same document proved
// (Binding.Locator is "valid when computed"), and refs new in this
// snapshot get none until a complete snapshot.

// locatorRoles are the roles a role locator is made for: the roles that
// always take a ref (ACTION_ROLES and SCOPE_ROLES in 10-roles.js). Every
// node of these roles in a snapshot carries its full name, so counting
// them in the captured trees counts exactly what a role query matches.
var locatorRoles = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range strings.Fields(`button link textbox searchbox checkbox radio switch combobox listbox option menuitem
		menuitemcheckbox menuitemradio tab treeitem slider spinbutton scrollbar gridcell iframe video audio
		navigation main banner contentinfo complementary form search region dialog alertdialog tabpanel menu menubar
		toolbar tree grid treegrid tablist`) {
		m[r] = true
	}
	return m
}()

// locInfo is the agent's locatorInfo for one element.
type locInfo struct {
	TestID       string `json:"t"`
	TestIDUnique int    `json:"tu"`
	TestIDSel    string `json:"ts"`
	ID           string `json:"d"`
	IDSel        string `json:"ds"`
	IDUnique     int    `json:"du"`
	Path         string `json:"p"`
	PathAnchor   string `json:"a"`
}

type locInfoReply struct {
	Els    []*locInfo `json:"els"`
	Probed []int      `json:"probed"`
}

// frameLocs is one frame's part of assignLocators.
type frameLocs struct {
	c      *frameCapture
	counts map[string]int           // role+name -> nodes in this frame
	nodes  map[int64]*snapshot.Node // element -> its (first) node
	ids    []int64                  // elements to find locators for
	paths  []int64                  // those that may need a CSS path
	info   map[int64]*locInfo       // nil when the agent call failed
	locs   map[int64]string         // chosen locators
	// probe results for the top frame's candidates (subframes only)
	probed map[string]bool
}

func roleKey(role, name string) string { return role + "\x00" + name }

// roleCandidate reports whether a node may get a role locator: a role
// counted in full (locatorRoles) and a name (role=button[name=""] says
// little and breaks as soon as a second unnamed one appears).
func roleCandidate(n *snapshot.Node) bool {
	return n != nil && locatorRoles[n.Role] && n.Name != ""
}

// surfaceComplete reports whether the captures show the whole surface:
// every frame of the tab captured whole and read.
func surfaceComplete(t *engine.Surface, caps []*frameCapture) bool {
	if len(caps) == 0 || caps[0].id != t.Root() {
		return false
	}
	seen := map[string]bool{}
	for _, c := range caps {
		if c.err != nil || c.page == nil || c.w == nil || c.partial {
			return false
		}
		seen[c.id] = true
	}
	for _, f := range surfaceFrames(t) {
		if !seen[f] {
			return false
		}
	}
	return true
}

// assignLocators computes a locator for every ref bound in a snapshot and
// stores it in the ref's binding (empty when none is valid). Call it with
// the snapshot's captures after bindRefs and before merge and the
// transforms that prune trees. See the top of this file for the rules.
// Caller holds t.Lock.
func assignLocators(ctx context.Context, t *engine.Surface, caps []*frameCapture, k *kept) {
	if j := prepareLocators(t, caps); j != nil {
		j.run(ctx, t, k)
	}
}

// locatorJob is assignLocators cut in two: what it reads of the captured
// trees (prepareLocators, before anything changes them), and the rest
// (run), which reads only what it took and the frames' agents, so it may
// run while the trees are merged and rendered.
type locatorJob struct {
	fls     []*frameLocs
	byFrame map[string]*frameLocs
	surface map[string]int
}

func prepareLocators(t *engine.Surface, caps []*frameCapture) *locatorJob {
	if !surfaceComplete(t, caps) {
		return nil
	}
	surface := map[string]int{}
	fls := make([]*frameLocs, len(caps))
	byFrame := map[string]*frameLocs{}
	for i, c := range caps {
		fl := &frameLocs{c: c, counts: map[string]int{}, nodes: map[int64]*snapshot.Node{}, locs: map[int64]string{}}
		fls[i], byFrame[c.id] = fl, fl
		snapshot.Walk(c.page.Nodes, func(n *snapshot.Node, _ int) bool {
			if n.IsText() {
				return false
			}
			if locatorRoles[n.Role] {
				k := roleKey(n.Role, n.Name)
				fl.counts[k]++
				surface[k]++
			}
			// Controls get locators; a line of text or structure has its
			// ref only (locators cost a lookup per element on big pages).
			if n.Elem != 0 && n.Ref != "" && n.Control {
				if _, ok := fl.nodes[n.Elem]; !ok {
					fl.nodes[n.Elem] = n
					fl.ids = append(fl.ids, n.Elem)
				}
			}
			// A frame's nodes hang under its iframe once merged: they
			// are counted with their own frame.
			return !n.Frame
		})
	}
	// A subframe's locators start with its <iframe>'s, found in the parent.
	for _, c := range caps[1:] {
		p := byFrame[c.parent]
		if p == nil || c.owner == 0 || c.oerr != nil {
			continue
		}
		if _, ok := p.nodes[c.owner]; !ok {
			p.nodes[c.owner] = nil
			p.ids = append(p.ids, c.owner)
		}
	}
	for _, fl := range fls {
		for _, id := range fl.ids {
			if n := fl.nodes[id]; !roleCandidate(n) || surface[roleKey(n.Role, n.Name)] != 1 {
				fl.paths = append(fl.paths, id)
			}
		}
	}
	return &locatorJob{fls: fls, byFrame: byFrame, surface: surface}
}

// run asks the agents and stores each ref's locator. It reads the nodes'
// roles, names, refs and element ids, never their children.
func (j *locatorJob) run(ctx context.Context, t *engine.Surface, k *kept) {
	fls, byFrame, surface := j.fls, j.byFrame, j.surface

	// The top frame first: its candidates are checked in every other frame.
	top := fls[0]
	top.info, _ = k.locatorInfo(ctx, top, nil)
	if len(fls) > 1 {
		var probes []string
		if top.info != nil {
			for _, id := range top.ids {
				probes = append(probes, topProbes(top, id, surface)...)
			}
		}
		var wg sync.WaitGroup
		for _, fl := range fls[1:] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fctx, cancel := context.WithTimeout(ctx, frameTimeout)
				defer cancel()
				fl.info = locatorInfoProbed(fctx, k, fl, probes)
			}()
		}
		wg.Wait()
	}

	// Choose, parents before children (a frame's prefix is its iframe's
	// locator in the parent).
	order := append([]*frameLocs(nil), fls...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].c.depth < order[j].c.depth })
	for _, fl := range order {
		prefix, hasPrefix := locator.Locator{}, false
		if fl.c.parent != "" {
			if p := byFrame[fl.c.parent]; p != nil && fl.c.owner != 0 && fl.c.oerr == nil {
				if s := p.locs[fl.c.owner]; s != "" {
					if l, err := locator.ParseLocator(s); err == nil {
						prefix, hasPrefix = l, true
					}
				}
			}
		}
		for _, id := range fl.ids {
			var l locator.Locator
			if fl == top {
				l = chooseTop(fls, top, id, surface)
			} else {
				l = chooseSub(fl, id, surface, prefix, hasPrefix)
			}
			if !l.IsZero() {
				fl.locs[id] = l.String()
			}
		}
	}
	for _, fl := range fls {
		for id, n := range fl.nodes {
			if n == nil {
				continue
			}
			if b, ok := t.Refs().Lookup(n.Ref); ok && b.Elem == id && b.Doc == (snapshot.Doc{Frame: fl.c.id, World: fl.c.w.ContextID()}) {
				b.Locator = fl.locs[id]
			}
		}
	}
}

// locatorInfoProbed is locatorInfo for a subframe, which also checks the
// top frame's candidate selectors; a probe that cannot be checked counts
// as matching.
func locatorInfoProbed(ctx context.Context, k *kept, fl *frameLocs, probes []string) map[int64]*locInfo {
	info, probed := k.locatorInfo(ctx, fl, probes)
	fl.probed = map[string]bool{}
	for i, p := range probes {
		if probed == nil || i >= len(probed) || probed[i] != 0 {
			fl.probed[p] = true
		}
	}
	return info
}

// locatorInfoCall asks a frame's agent about its elements (and probes);
// nil on failure.
func locatorInfoCall(ctx context.Context, fl *frameLocs, probes []string) (map[int64]*locInfo, []int) {
	if len(fl.ids) == 0 && len(probes) == 0 {
		return map[int64]*locInfo{}, []int{}
	}
	ids, paths := fl.ids, fl.paths
	if ids == nil {
		ids = []int64{}
	}
	if paths == nil {
		paths = []int64{}
	}
	if probes == nil {
		probes = []string{}
	}
	var r locInfoReply
	if err := fl.c.w.Call(ctx, "locatorInfo", &r, ids, paths, probes); err != nil || len(r.Els) != len(ids) {
		return nil, nil
	}
	if len(probes) > 0 && len(r.Probed) != len(probes) {
		r.Probed = nil
	}
	info := make(map[int64]*locInfo, len(ids))
	for i, id := range ids {
		if r.Els[i] != nil {
			info[id] = r.Els[i]
		}
	}
	return info, r.Probed
}

// topProbes are the selectors a top-frame element's choice may depend on,
// to be checked in every other frame.
func topProbes(top *frameLocs, id int64, surface map[string]int) []string {
	in := top.info[id]
	if in == nil {
		return nil
	}
	var out []string
	if in.TestIDUnique != 0 && in.TestIDSel != "" {
		out = append(out, in.TestIDSel)
	}
	if n := top.nodes[id]; roleCandidate(n) && surface[roleKey(n.Role, n.Name)] == 1 {
		return out // role and name will do if the testid does not
	}
	if in.IDUnique != 0 && in.IDSel != "" {
		out = append(out, in.IDSel)
	}
	if in.Path != "" {
		out = append(out, in.Path)
	}
	return out
}

// chooseTop picks a top-frame element's locator: its candidates must be
// unique in the top document and match nothing in any other frame.
func chooseTop(fls []*frameLocs, top *frameLocs, id int64, surface map[string]int) locator.Locator {
	elsewhere := func(sel string) bool {
		for _, fl := range fls[1:] {
			if fl.probed == nil || fl.probed[sel] {
				return true
			}
		}
		return false
	}
	in := top.info[id]
	if in != nil && in.TestIDUnique != 0 && !elsewhere(in.TestIDSel) {
		return locator.Step{Kind: locator.StepTestID, Value: in.TestID}.Locator()
	}
	if n := top.nodes[id]; roleCandidate(n) && surface[roleKey(n.Role, n.Name)] == 1 {
		return locator.RoleStep(n.Role, n.Name).Locator()
	}
	if in == nil {
		return locator.Locator{}
	}
	if in.IDUnique != 0 && !elsewhere(in.IDSel) {
		return locator.Step{Kind: locator.StepCSS, Value: in.IDSel}.Locator()
	}
	if in.Path != "" && !elsewhere(in.Path) {
		return locator.Step{Kind: locator.StepCSS, Value: in.Path}.Locator()
	}
	return locator.Locator{}
}

// chooseSub picks a subframe element's locator: role and name alone when
// unique on the surface, otherwise a candidate unique in its frame under
// the frame's prefix.
func chooseSub(fl *frameLocs, id int64, surface map[string]int, prefix locator.Locator, hasPrefix bool) locator.Locator {
	in := fl.info[id]
	if in != nil && in.TestIDUnique != 0 && hasPrefix {
		return locator.Step{Kind: locator.StepTestID, Value: in.TestID}.Locator().Within(prefix)
	}
	if n := fl.nodes[id]; roleCandidate(n) {
		k := roleKey(n.Role, n.Name)
		if surface[k] == 1 {
			return locator.RoleStep(n.Role, n.Name).Locator()
		}
		if fl.counts[k] == 1 && hasPrefix {
			return locator.RoleStep(n.Role, n.Name).Locator().Within(prefix)
		}
	}
	if in == nil || !hasPrefix {
		return locator.Locator{}
	}
	if in.IDUnique != 0 {
		return locator.Step{Kind: locator.StepCSS, Value: in.IDSel}.Locator().Within(prefix)
	}
	if in.Path != "" {
		return locator.Step{Kind: locator.StepCSS, Value: in.Path}.Locator().Within(prefix)
	}
	return locator.Locator{}
}
