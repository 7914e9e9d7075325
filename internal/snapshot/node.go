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
	// Cells are the texts of a table row whose cells are only text: the
	// row prints them on its own line, and they take no refs.
	Cells    []string `json:"cells,omitzero"`
	Children []*Node  `json:"children,omitzero"`

	// Set by the engine.
	Ref string `json:"ref,omitzero"`
	// FrameNote says why a frame node has no content (e.g. "unreachable").
	FrameNote string `json:"frameNote,omitzero"`
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
	// Gone are the element ids of nodes that have left the document since
	// the last snapshot: their refs are dropped.
	Gone []int64 `json:"gone,omitzero"`
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
	CS []string `json:"cs,omitzero"`
	C  []*Node  `json:"c,omitzero"`
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
	*n = Node{
		Role: a.R, Name: a.N, NameFromContent: a.NF != 0, Elem: a.I, States: a.S,
		Value: a.V, URL: a.U, Frame: a.FR != 0, Control: a.K != 0, Cells: a.CS, Children: a.C,
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
