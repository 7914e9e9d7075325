package snapshot

import (
	"fmt"
	"strings"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// Node is one node of a snapshot tree, as the page agent reports it.
type Node struct {
	Role            string `json:"role"`
	Name            string `json:"name,omitzero"`
	NameFromContent bool   `json:"nameFromContent,omitzero"`
	Elem            int64  `json:"elem,omitzero"`   // the agent's element id; 0 when the node takes no ref
	States          string `json:"states,omitzero"` // space-separated: "checked disabled level=2"
	Value           string `json:"value,omitzero"`
	URL             string `json:"url,omitzero"`
	Frame           bool   `json:"frame,omitzero"` // an iframe whose document loads separately
	Text            string `json:"text,omitzero"`  // for Role "text"
	// Control marks something to operate (a role an agent acts on, a
	// container to scope to, an editor, or an element with a pointer
	// cursor, handler or tabindex); the interactive view keeps these.
	Control bool `json:"control,omitzero"`
	// Twin is the agent's id of the invisible control this node stands
	// for (its role, name and states are that control's; its ref is the
	// visible element's): a copy a person never sees, such as an editor's
	// hidden input or a list mirrored for screen readers.
	Twin int64 `json:"twin,omitzero"`
	// NoRef marks an element printed to be read but given no ref: no
	// verb reaches it (a list kept in the page while closed, and its
	// items). Its Elem still names it, for what compares the tree with
	// the browser's.
	NoRef bool `json:"noRef,omitzero"`
	// Cells are the texts of a table row whose cells are only text: the
	// row prints them on its own line, and they take no refs.
	Cells    []string `json:"cells,omitzero"`
	Children []*Node  `json:"children,omitzero"`

	// Set by the engine.
	Ref string `json:"ref,omitzero"`
	// FrameNote says why a frame node has no content (e.g. "unreachable").
	FrameNote string `json:"frameNote,omitzero"`

	// Key is the page agent's key of a node its memo kept; a node decoded
	// as Reuses stands for the node with that key in the caller's copy of
	// the agent's previous walk (see Page.Resolve).
	Key    int64 `json:"-"`
	Reuses int64 `json:"-"`
}

// IsText reports whether the node is a run of text.
func (n *Node) IsText() bool { return n.Role == "text" }

// Page is the agent's report for one document.
type Page struct {
	URL   string  `json:"url"`
	Title string  `json:"title"`
	Nodes []*Node `json:"nodes"`
	Count int     `json:"count"`
	Error string  `json:"error,omitzero"`
	// Seq numbers the agent's walks of a whole document (0 for a scoped,
	// viewport-only or fresh walk, which it does not keep). Same says the
	// document is as walk Seq showed it, which the caller has: no Nodes.
	Seq  int64 `json:"seq,omitzero"`
	Same bool  `json:"same,omitzero"`
	// Struct is the walk number after which the document's elements or
	// attributes last changed (its text may have since): what depends on
	// those alone is as it was at walk Struct.
	Struct int64 `json:"struct,omitzero"`
	// Cut says the walk stopped at its budget: Nodes are the beginning of
	// the document's tree.
	Cut bool `json:"cut,omitzero"`
	// Gone are the element ids of nodes that have left the document since
	// the last snapshot: their refs are dropped.
	Gone []int64 `json:"gone,omitzero"`
	// AX are the element ids of the custom elements the walk met whose
	// semantics may come from their ElementInternals, which no script can
	// read: the engine asks Chromium's accessibility tree about them and
	// hands the answers back (see the page agent's 25-internals.js).
	AX []int64 `json:"ax,omitzero"`
	// AXPlain are the element ids of custom elements whose answer (see
	// AX) said nothing their own attributes do not: not to be asked about
	// again.
	AXPlain []int64 `json:"axPlain,omitzero"`
}

// agentNode is the wire form of an element node.
type agentNode struct {
	R  string   `json:"r"`
	N  string   `json:"n,omitzero"`
	NF int      `json:"nf,omitzero"`
	I  int64    `json:"i,omitzero"`
	S  string   `json:"s,omitzero"`
	V  string   `json:"v,omitzero"`
	U  string   `json:"u,omitzero"`
	FR int      `json:"fr,omitzero"`
	K  int      `json:"k,omitzero"`
	TW int64    `json:"tw,omitzero"`
	NR int      `json:"nr,omitzero"`
	CS []string `json:"cs,omitzero"`
	C  []*Node  `json:"c,omitzero"`
	M  int64    `json:"m,omitzero"`
	At int64    `json:"@,omitzero"`
}

// UnmarshalJSONFrom decodes the agent's compact form: a JSON string is a
// text run, an object an element.
func (n *Node) UnmarshalJSONFrom(dec *jsonv2.Decoder) error {
	if dec.PeekKind() == '"' {
		var s string
		if err := jsonv2.UnmarshalDecode(dec, &s); err != nil {
			return err
		}
		*n = Node{Role: "text", Text: s}
		return nil
	}
	var a agentNode
	if err := jsonv2.UnmarshalDecode(dec, &a); err != nil {
		return err
	}
	if a.R == "text" {
		// Text directly in the document's root, with the root's id.
		*n = Node{Role: "text", Text: a.N, Elem: a.I}
		return nil
	}
	*n = Node{
		Role: a.R, Name: a.N, NameFromContent: a.NF != 0, Elem: a.I, States: a.S,
		Value: a.V, URL: a.U, Frame: a.FR != 0, Control: a.K != 0, Twin: a.TW, NoRef: a.NR != 0, Cells: a.CS, Children: a.C, Key: a.M, Reuses: a.At,
	}
	if a.At != 0 && (a.R != "" || len(a.C) != 0) {
		return fmt.Errorf("snapshot: a reused node (@%d) with content of its own", a.At)
	}
	return nil
}

// DecodePage parses the JSON string the agent's snapshot() returns.
func DecodePage(s string) (*Page, error) {
	var p Page
	if err := jsonv2.Unmarshal([]byte(s), &p); err != nil {
		return nil, fmt.Errorf("snapshot: decoding page agent output: %w", err)
	}
	return &p, nil
}

// Walk calls fn for every node in pre-order; fn returning false skips the
// node's children.
func Walk(nodes []*Node, fn func(n *Node, depth int) bool) {
	var rec func([]*Node, int)
	rec = func(ns []*Node, d int) {
		for _, n := range ns {
			if fn(n, d) {
				rec(n.Children, d+1)
			}
		}
	}
	rec(nodes, 0)
}

// HasState reports whether the space-separated states include s (either
// bare or as s=value).
func (n *Node) HasState(s string) bool {
	for _, f := range strings.Fields(n.States) {
		if f == s || strings.HasPrefix(f, s+"=") {
			return true
		}
	}
	return false
}

// Resolve replaces each reused node of the page (one the agent sent by
// key) by the node with that key in prev, the keyed nodes of the agent's
// previous walk as the caller kept them, and returns the keyed nodes of
// this walk for the next one. The nodes of prev are shared, not copied:
// kept trees are never changed (see Clone). It fails, changing nothing
// the caller keeps, when a key is not in prev.
func (p *Page) Resolve(prev map[int64]*Node) (map[int64]*Node, error) {
	var missing int64
	var fix func([]*Node)
	fix = func(ns []*Node) {
		for i, n := range ns {
			if n.Reuses != 0 {
				k, ok := prev[n.Reuses]
				if !ok {
					missing = n.Reuses
					return
				}
				ns[i] = k
				continue
			}
			fix(n.Children)
			if missing != 0 {
				return
			}
		}
	}
	fix(p.Nodes)
	if missing != 0 {
		return nil, fmt.Errorf("snapshot: the agent reused node %d, which the previous walk did not have", missing)
	}
	keys := make(map[int64]*Node, len(prev)+16)
	Walk(p.Nodes, func(n *Node, _ int) bool {
		if n.Key != 0 {
			keys[n.Key] = n
		}
		return true
	})
	return keys, nil
}

// Clone copies a tree deeply, for the stages that change the nodes they
// are given (refs, frames, the compact transform) while the original is
// kept for the next walk.
func Clone(ns []*Node) []*Node {
	if ns == nil {
		return nil
	}
	all := make([]Node, count(ns))
	out, _ := cloneInto(ns, all)
	return out
}

func count(ns []*Node) int {
	c := len(ns)
	for _, n := range ns {
		c += count(n.Children)
	}
	return c
}

// cloneInto copies ns into the front of pool and returns the copies and
// what is left of pool: one allocation for the whole tree.
func cloneInto(ns []*Node, pool []Node) ([]*Node, []Node) {
	out := make([]*Node, len(ns))
	for i, n := range ns {
		pool[0] = *n
		c := &pool[0]
		pool = pool[1:]
		if n.Children != nil {
			c.Children, pool = cloneInto(n.Children, pool)
		}
		out[i] = c
	}
	return out, pool
}
