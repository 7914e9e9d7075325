package capture_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	cdpproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/world"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// The comparison test: loupe's snapshot does not use Chromium's
// accessibility tree (getFullAXTree costs seconds on big pages); the page
// agent computes roles and names itself. This test holds it to Chromium's
// tree on every fixture page: for every element the agent emits, its role
// and accessible name must equal Chromium's, up to the role spelling table
// below and the short table of known differences. Elements Chromium
// exposes that the agent folds into text or leaves out as presentational
// content are counted by category and logged, not failed.
//
// Set LOUPE_AXDUMP=1 to log every compared element.

// chromeRoles maps Chromium's internal roles (reported by their enum name
// when ARIA has no role for them) to the role the agent reports for the same
// element.
var chromeRoles = map[string]string{
	"DisclosureTriangle":        "button",  // <summary> of a <details>: a button that toggles it
	"DisclosureTriangleGrouped": "button",  // the same, in a <details name> group
	"LabelText":                 "label",   // <label>
	"Legend":                    "legend",  // <legend>
	"Figcaption":                "caption", // <figcaption>: HTML-AAM maps it to ARIA caption
	"MathMLMath":                "math",    // <math>: MathML-AAM maps it to ARIA math
	"DescriptionList":           "list",    // <dl>: every platform mapping exposes it as a list
	"Iframe":                    "iframe",
	"IframePresentational":      "iframe",
	"Canvas":                    "canvas",
	"Video":                     "video",
	"Audio":                     "audio",
	"SvgRoot":                   "svg", // an <svg> with parts of its own (an <svg> without is an image)
	"none":                      "presentation",
	// Layout tables: Chromium keeps their rows and cells under roles of
	// their own; loupe shows every table as a table (docs/fidelity.md).
	"LayoutTable":     "table",
	"LayoutTableRow":  "row",
	"LayoutTableCell": "cell",
}

// knownDiff is a difference between the agent and Chromium that the test
// accepts. Keep this table short: every entry says why it is not fixed.
// docs/fidelity.md lists the same differences.
type knownDiff struct {
	elem   string // element as the test describes it, matched as a prefix ("input#x", "video"), or as a tag with "=" ("=a"); "|" separates alternatives
	field  string // "role", "name", "states" or "missing"
	ours   string // our value ("*" for any)
	theirs string // Chromium's value; "|" separates alternatives ("*" for any)
	why    string
}

var knownDiffs = []knownDiff{
	{"div", "role", "textbox", "generic",
		"an editable root (contenteditable) without a role: Chromium exposes a generic container with editable=richtext; " +
			"loupe calls it a textbox so that an agent sees it can fill it"},
	{"input", "role", "textbox", "Date|DateTime|InputTime",
		"date and time inputs: Chromium's internal roles have no ARIA equivalent; loupe calls them textboxes, " +
			"which is how an agent fills them"},
	{"input", "role", "button", "ColorWell",
		"<input type=color>: Chromium's internal role has no ARIA equivalent; loupe calls it a button (it opens a picker)"},
	{"canvas", "role", "canvas", "<ignored>",
		"an unnamed <canvas> without an id: Chromium leaves it out as uninteresting; loupe keeps it as a drawing " +
			"surface an agent may need to click"},
	{"video|audio", "name", "*", "Unable to play media.",
		"a media element that cannot play (no source, or a failed one): Chromium replaces its name with a localised " +
			"status message; loupe keeps the author's name"},
	{"video|audio", "states", "", "disabled",
		"the same unplayable media element: Chromium marks it disabled; loupe does not (its controls still respond)"},
	{"=a", "role", "generic", "link",
		"an <a> without href: Chromium calls it a link when it has a click listener, which a page script cannot see; " +
			"loupe shows it as a control ([clickable]) with a ref, whatever its listeners"},
	{"=a", "name", "", "*",
		"the same <a> without href: Chromium names its link from its content; loupe prints that content as the line's text"},
	{"summary in details", "missing", "", "DisclosureTriangle",
		"a <details> without <summary>: Chromium exposes the browser-generated summary (in user-agent shadow DOM, which a " +
			"page script cannot reach); loupe shows the details without it"},
}

// folded are roles of elements the agent does not emit as nodes of their
// own: containers and text-level elements whose content it folds into the
// surrounding text, and layout tables.
var folded = map[string]bool{
	"generic": true, "none": true, "LabelText": true, "strong": true, "emphasis": true, "code": true, "mark": true,
	"deletion": true, "insertion": true, "subscript": true, "superscript": true, "time": true, "term": true,
	"definition": true, "Abbr": true, "Ruby": true,
	// Row groups: their rows belong to the table.
	"rowgroup": true,
	// CSS tables (display: table on a div): loupe shows plain containers.
	"LayoutTable": true, "LayoutTableRow": true, "LayoutTableCell": true,
}

// leafRoles are the agent's roles whose children it does not show (their
// content is their name or value): whatever Chromium exposes below them
// (text runs, images in buttons, the parts of a date field or a media
// player) is out of scope. So is the inside of a <select>, which the agent
// shows as its options only (no popup, no option groups).
var leafRoles = map[string]bool{
	"button": true, "checkbox": true, "image": true, "math": true, "menuitemcheckbox": true, "menuitemradio": true,
	"meter": true, "option": true, "progressbar": true, "radio": true, "scrollbar": true, "separator": true,
	"slider": true, "switch": true, "tab": true, "textbox": true, "searchbox": true, "spinbutton": true,
	"canvas": true, "iframe": true, "video": true, "audio": true,
}

// axFacts is what Chromium says about one DOM node.
type axFacts struct {
	role, name string
	states     string // in the agent's form: "checked disabled level=2"
	ignored    bool
}

// agentElem is one element node of the agent's tree.
type agentElem struct {
	id         int64
	twin       int64 // the invisible control the element stands for (Node.Twin)
	role, name string
	states     string
	desc       string // the element as describeDOM gives it
}

type axDiff struct {
	elem, field, ours, theirs string
}

func (d axDiff) String() string {
	return fmt.Sprintf("%s: %s ours=%q chromium=%q", d.elem, d.field, d.ours, d.theirs)
}

func TestAXCompare(t *testing.T) {
	t.Parallel()
	pages, err := fs.Glob(os.DirFS("../../testpages/pages"), "*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no fixture pages: %v", err)
	}
	dump := os.Getenv("LOUPE_AXDUMP") != ""
	tab := openTab(t, "") // for every page in turn (see enginetest.Goto)
	for _, page := range pages {
		t.Run(strings.TrimSuffix(page, ".html"), func(t *testing.T) {
			gotoPage(t, tab, page)
			ctx := longCtx(t) // a comparison is hundreds of calls
			r, err := compareAX(ctx, tab)
			if err != nil {
				t.Fatal(err)
			}
			r.report(t, page, dump)
		})
	}
}

type axResult struct {
	compared int
	diffs    []axDiff
	known    []axDiff
	folded   map[string]int
	log      []string
}

// report logs a page's comparison (every element with dump) and fails the
// test on each mismatch.
func (r *axResult) report(t *testing.T, page string, dump bool) {
	t.Helper()
	if dump {
		for _, l := range r.log {
			t.Log(l)
		}
	}
	cats := make([]string, 0, len(r.folded))
	for c, n := range r.folded {
		cats = append(cats, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(cats)
	t.Logf("%s: %d elements compared, %d known differences, %d mismatches; Chromium nodes loupe does not emit: %s",
		page, r.compared, len(r.known), len(r.diffs), strings.Join(cats, " "))
	for _, d := range r.known {
		t.Logf("known: %s", d)
	}
	for _, d := range r.diffs {
		t.Errorf("mismatch: %s", d)
	}
}

func compareAX(ctx context.Context, tab *engine.Surface) (*axResult, error) {
	p, w, err := agentSnapshotAll(ctx, tab)
	if err != nil {
		return nil, err
	}
	var elems []agentElem
	snapshot.Walk(p.Nodes, func(n *snapshot.Node, _ int) bool {
		if n.HasState("aria-hidden") {
			// What an aria-hidden subtree shows is printed for a sighted
			// reader; Chromium's tree leaves it out by definition.
			return false
		}
		// Text in the document's root carries the root's id only to be
		// acted on: the root is no element of the tree to compare.
		if n.Elem != 0 && !n.IsText() {
			elems = append(elems, agentElem{id: n.Elem, twin: n.Twin, role: n.Role, name: n.Name, states: n.States})
		}
		return true
	})
	ids := make([]int64, 0, 2*len(elems))
	for _, e := range elems {
		ids = append(ids, e.id)
	}
	for _, e := range elems {
		if e.twin != 0 {
			ids = append(ids, e.twin)
		}
	}
	all, err := elemNodes(ctx, tab, w, ids)
	if err != nil {
		return nil, err
	}
	nodes, twins := all[:len(elems)], map[int64]*cdpproto.Node{}
	for i, id := range ids[len(elems):] {
		twins[id] = all[len(elems)+i]
	}
	tree, err := cdpproto.Call(ctx, tab.Session(), accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		return nil, err
	}
	ax := map[cdpproto.BackendNodeID]axFacts{}
	for _, n := range tree.Nodes {
		if n.BackendDOMNodeID == 0 {
			continue
		}
		ax[n.BackendDOMNodeID] = axFacts{role: axString(n.Role), name: axString(n.Name), states: axStates(n), ignored: n.Ignored}
	}

	r := &axResult{folded: map[string]int{}}
	emitted := map[cdpproto.BackendNodeID]*agentElem{}
	add := func(elem, field, ours, theirs string) {
		d := axDiff{elem, field, ours, theirs}
		if isKnown(d) {
			r.known = append(r.known, d)
		} else {
			r.diffs = append(r.diffs, d)
		}
	}
	for i, e := range elems {
		n := nodes[i]
		if n == nil {
			add(fmt.Sprintf("id %d", e.id), "resolve", "", "")
			continue
		}
		emitted[n.BackendNodeID] = &elems[i]
		desc := describeDOM(n)
		elems[i].desc = desc
		if e.twin != 0 {
			// A visible element that stands for an invisible control
			// (an editor's hidden input, a list's copy for screen
			// readers) carries that control's role, name and states:
			// they are compared with Chromium's for the control.
			tn := twins[e.twin]
			if tn == nil {
				add(desc, "resolve twin", "", "")
				continue
			}
			n = tn
			emitted[n.BackendNodeID] = &elems[i]
			desc += " for " + describeDOM(n)
		}
		f, ok := ax[n.BackendNodeID]
		r.compared++
		if !ok || f.ignored {
			// Not in Chromium's tree: right only for an element without a
			// role of its own.
			r.log = append(r.log, fmt.Sprintf("%-40s ours=%s %q chromium=<ignored>", desc, e.role, e.name))
			if !noRole(e.role) {
				add(desc, "role", e.role, "<ignored>")
			}
			continue
		}
		if strings.HasPrefix(f.role, "LayoutTable") && noRole(e.role) {
			// A CSS table's parts (display: table on divs): plain
			// containers to loupe, named or not.
			continue
		}
		role := normRole(f.role)
		name := normName(f.name)
		r.log = append(r.log, fmt.Sprintf("%-40s ours=%s %q chromium=%s %q", desc, e.role, e.name, f.role, name))
		if role != e.role && !(noRole(role) && noRole(e.role)) {
			add(desc, "role", e.role, f.role)
		}
		if name != normName(e.name) {
			if e.twin != 0 && name == "" {
				// A control with no name of its own, shown by a visible
				// element: named by the text that element shows
				// (docs/fidelity.md).
				r.known = append(r.known, axDiff{desc, "name (shown by its stand-in)", e.name, name})
			} else if normName(invisible.Replace(name)) == normName(e.name) {
				// Zero-width characters and icon glyphs show nothing;
				// loupe drops them, Chromium keeps them.
				r.known = append(r.known, axDiff{desc, "name (zero-width)", e.name, name})
			} else if innerHosts[e.role] && e.name != "" && strings.HasPrefix(name, normName(e.name)+" ") {
				// A control inside an option, tab or tree item (a remove
				// or close button) prints as a line of its own with its
				// ref; Chromium folds its label into the host's name too
				// (docs/fidelity.md).
				r.known = append(r.known, axDiff{desc, "name (controls inside left out)", e.name, name})
			} else if wbrSpacing(ctx, tab, n.BackendNodeID, e.name, name) {
				// <wbr>: Chromium joins the text on either side of a
				// line-break opportunity with a space; a reader sees
				// none, and loupe prints none.
				r.known = append(r.known, axDiff{desc, "name (<wbr>)", e.name, name})
			} else {
				add(desc, "name", e.name, name)
			}
		}
		theirs := f.states
		if role == "combobox" {
			// loupe prints only an open combobox's expanded state: the
			// role says it opens (docs/fidelity.md).
			theirs = strings.TrimSpace(strings.ReplaceAll(" "+theirs+" ", " expanded=false ", " "))
		}
		if ours := comparedStates(e.states, e.role); ours != theirs {
			add(desc, "states", ours, theirs)
		}
	}
	// Elements Chromium exposes that the agent does not emit: inside a node
	// whose children the agent does not show, folded into text, or missing.
	byAX := map[accessibility.NodeID]*accessibility.Node{}
	for _, n := range tree.Nodes {
		byAX[n.NodeID] = n
	}
	for _, n := range tree.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 || emitted[n.BackendDOMNodeID] != nil {
			continue
		}
		role := axString(n.Role)
		switch role {
		case "StaticText", "InlineTextBox", "RootWebArea", "LineBreak", "ListMarker":
			continue
		}
		var anc *agentElem
		for p := byAX[n.ParentID]; p != nil; p = byAX[p.ParentID] {
			if e := emitted[p.BackendDOMNodeID]; e != nil {
				anc = e
				break
			}
		}
		switch {
		case anc != nil && (leafRoles[anc.role] || strings.HasPrefix(anc.desc, "select")):
			r.folded["inside "+anc.role]++
		case folded[role]:
			r.folded["folded "+role]++
		default:
			elem := fmt.Sprintf("node %d", n.BackendDOMNodeID)
			if d, err := cdpproto.Call(ctx, tab.Session(), dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: n.BackendDOMNodeID}); err == nil {
				elem = describeDOM(d.Node)
			}
			if anc != nil {
				elem += " in " + anc.desc
			}
			add(elem, "missing", "", role)
		}
	}
	return r, nil
}

// invisible removes what the page agent drops from text (INVISIBLE_CHARS
// in js/30-walk.js): zero-width characters and the soft hyphen.
var invisible = strings.NewReplacer("\u00ad", "", "\u200b", "", "\u200c", "", "\u200d", "", "\u2060", "", "\ufeff", "")

// wbrSpacing reports a name that differs from Chromium's only by spaces,
// on an element with a <wbr> inside.
func wbrSpacing(ctx context.Context, tab *engine.Surface, id cdpproto.BackendNodeID, ours, theirs string) bool {
	if strings.ReplaceAll(ours, " ", "") != strings.ReplaceAll(theirs, " ", "") {
		return false
	}
	h, err := cdpproto.Call(ctx, tab.Session(), dom.GetOuterHTML, dom.GetOuterHTMLParams{BackendNodeID: id})
	return err == nil && strings.Contains(h.OuterHTML, "<wbr")
}

// innerHosts are the roles whose names leave out the controls inside them
// (INNER_HOSTS and NAMED_ITEMS in js/30-walk.js).
var innerHosts = map[string]bool{"option": true, "tab": true, "button": true, "menuitemcheckbox": true, "menuitemradio": true,
	"treeitem": true, "menuitem": true}

func isKnown(d axDiff) bool {
	for _, k := range knownDiffs {
		prefix := slices.ContainsFunc(strings.Split(k.elem, "|"), func(p string) bool {
			if tag, ok := strings.CutPrefix(p, "="); ok {
				rest, ok := strings.CutPrefix(d.elem, tag)
				return ok && (rest == "" || strings.ContainsAny(rest[:1], "#.[ "))
			}
			return strings.HasPrefix(d.elem, p)
		})
		if !prefix || k.field != d.field || (k.ours != "*" && k.ours != d.ours) {
			continue
		}
		if k.theirs == "*" || slices.Contains(strings.Split(k.theirs, "|"), d.theirs) {
			return true
		}
	}
	return false
}

func normRole(r string) string {
	if m, ok := chromeRoles[r]; ok {
		return m
	}
	return r
}

// axStates turns Chromium's properties into the agent's state words, for
// the states the test compares.
func axStates(n *accessibility.Node) string {
	var out []string
	role := normRole(axString(n.Role))
	for _, p := range n.Properties {
		v := ""
		if p.Value != nil {
			v = strings.Trim(string(p.Value.Value), `"`)
		}
		switch string(p.Name) {
		case "checked", "pressed":
			if v == "true" {
				out = append(out, string(p.Name))
			} else if v == "mixed" {
				out = append(out, string(p.Name)+"=mixed")
			}
		case "expanded":
			if v == "true" {
				out = append(out, "expanded")
			} else if v == "false" {
				out = append(out, "expanded=false")
			}
		case "disabled", "selected", "required", "readonly":
			if v == "true" {
				out = append(out, string(p.Name))
			}
		case "invalid":
			if v != "false" && v != "" {
				out = append(out, "invalid")
			}
		case "level":
			if role == "heading" {
				out = append(out, "level="+v)
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// comparedStates keeps the agent's states the test compares, sorted.
func comparedStates(states, role string) string {
	var out []string
	for _, f := range strings.Fields(states) {
		if f == "collapsed" {
			f = "expanded=false" // loupe's shorter spelling
		}
		switch k, _, _ := strings.Cut(f, "="); k {
		case "checked", "pressed", "expanded", "disabled", "selected", "required", "readonly", "invalid":
			out = append(out, f)
		case "level":
			if role == "heading" {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// noRole reports whether a role says "no meaning of its own": generic,
// presentation, none.
func noRole(r string) bool { return r == "generic" || r == "presentation" || r == "none" }

func normName(s string) string { return strings.Join(strings.Fields(s), " ") }

func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if jsonv2.Unmarshal(v.Value, &s) != nil {
		return string(v.Value)
	}
	return s
}

// describeDOM names a DOM node the way the known-differences table does:
// tag, #id, and the type of an input.
func describeDOM(n *cdpproto.Node) string {
	d := n.LocalName
	attrs := map[string]string{}
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		attrs[n.Attributes[i]] = n.Attributes[i+1]
	}
	if id := attrs["id"]; id != "" {
		d += "#" + id
	}
	if t := attrs["type"]; t != "" && n.LocalName == "input" {
		d += "[type=" + t + "]"
	}
	if r := attrs["role"]; r != "" {
		d += "[role=" + r + "]"
	}
	return d
}

// agentSnapshotAll runs the agent's snapshot with every emitted element
// given an element id.
func agentSnapshotAll(ctx context.Context, tab *engine.Surface) (*snapshot.Page, *world.World, error) {
	// As a snapshot walks (custom elements' internals read from
	// Chromium's tree), with every option and cell reported.
	p, w, err := capture.AgentWalk(ctx, tab, map[string]any{"all": true})
	if err != nil {
		return nil, nil, err
	}
	if p.Error != "" {
		return nil, nil, fmt.Errorf("agent: %s", p.Error)
	}
	return p, w, nil
}

// elemNodes turns agent element ids into DOM nodes (with backend ids):
// __loupe.byId(id) by reference in the agent's world, then DOM.describeNode
// on the object. A nil entry is an id that did not resolve.
func elemNodes(ctx context.Context, tab *engine.Surface, w *world.World, ids []int64) ([]*cdpproto.Node, error) {
	const group = "axcompare"
	defer func() {
		_ = tab.Session().Call(context.WithoutCancel(ctx), "Runtime.releaseObjectGroup", map[string]string{"objectGroup": group}, nil)
	}()
	out := make([]*cdpproto.Node, len(ids))
	errs := make([]error, len(ids))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := cdpproto.Call(ctx, tab.Session(), runtime.Evaluate, runtime.EvaluateParams{
				Expression: fmt.Sprintf("__loupe.byId(%d)", id), ContextID: runtime.ExecutionContextID(w.ContextID()),
				ObjectGroup: group, ReturnByValue: new(false), Silent: new(true),
			})
			if err != nil {
				errs[i] = err
				return
			}
			if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
				return
			}
			d, err := cdpproto.Call(ctx, tab.Session(), dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
			if err != nil {
				errs[i] = err
				return
			}
			out[i] = d.Node
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
