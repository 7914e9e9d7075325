package snapshot

import (
	"strings"
	"unicode"
)

// Compact applies the compact transform to a tree and returns the new top
// level. It removes only what carries nothing:
//
//   - text that is empty, whitespace (NBSP included) or only zero-width
//     formatting characters;
//   - an unnamed container (role generic) left with no children, and an
//     empty paragraph with nothing of its own;
//
// and it replaces an unnamed container that has exactly one element child
// by that child (one whose only child is its own text keeps its line), a
// named container by its only child when that child has the same name, and
// a clickable wrapper by the one control it draws (and around a plain line
// of text it says that text itself); a line that only
// repeats a sibling control's name goes (the name says it once). Unnamed containers with several children stay, since they carry
// grouping. Named or ref-bearing containers and every semantic node (image,
// svg, canvas, iframe, list item, table cell, …) stay even when empty. Order,
// refs, values, URLs and frame boundaries are untouched, and non-empty text
// is never dropped. The transform is idempotent.
//
// Compact reuses the nodes it keeps; it does not copy the tree.
func Compact(nodes []*Node) []*Node {
	out := nodes[:0:0]
	for _, n := range nodes {
		if k := compactNode(n); k != nil {
			out = append(out, k...)
		}
	}
	return out
}

func compactNode(n *Node) []*Node {
	if n.IsText() {
		if Blank(n.Text) {
			return nil
		}
		return []*Node{n}
	}
	n.Children = sayOnce(Compact(n.Children))
	if isContainer(n) {
		switch {
		case len(n.Children) == 0:
			return nil
		case len(n.Children) == 1 && (n.Elem == 0 && n.Ref == "" || !n.Children[0].IsText()):
			// A block whose only content is its text keeps its line: the
			// ref on it is the way to click that text.
			return n.Children
		}
	}
	if n.Role == "generic" && !n.Control && n.States == "" && n.Value == "" && !n.Frame && len(n.Children) == 1 &&
		n.Name != "" && n.Children[0].Name == n.Name {
		// A named wrapper around the one thing it names (a tooltip
		// holder around its button) says nothing the child does not.
		return n.Children
	}
	if (n.Role == "generic" || n.Role == "label") && n.Name == "" && n.Value == "" && !n.Frame && onlyMarks(n.States) &&
		len(n.Children) == 1 && n.Children[0].Control {
		// A wrapper drawn around one control (a select's clickable box
		// around its input, a label around its switch) is operated
		// through that control.
		return n.Children
	}
	if n.Role == "generic" && n.Name == "" && n.Value == "" && len(n.Children) == 1 && (n.Control || n.States != "") {
		if c := n.Children[0]; c.Role == "generic" && !c.Control && c.States == "" && c.Name == "" && c.Value == "" && allText(c.Children) {
			// A clickable wrapper around a plain line of text says that
			// text itself (one line, the wrapper's ref).
			n.Children = c.Children
		}
	}
	if n.Role == "paragraph" && len(n.Children) == 0 && isBare(n) {
		// An empty paragraph (a status line not yet written) carries
		// nothing.
		return nil
	}
	return []*Node{n}
}

// sayOnce drops, from one node's children, a line of text that only says
// a sibling control's name again (the label text beside the switch it
// names): the name says it. Nothing else is dropped.
func sayOnce(kids []*Node) []*Node {
	var names map[string]bool
	for _, c := range kids {
		if c.Control && c.Name != "" {
			if names == nil {
				names = map[string]bool{}
			}
			names[c.Name] = true
		}
	}
	if names == nil {
		return kids
	}
	out := kids[:0]
	for _, c := range kids {
		if t, ok := lineText(c); ok && names[strings.Join(strings.Fields(t), " ")] {
			continue
		}
		out = append(out, c)
	}
	return out
}

// lineText returns the text of a node that is nothing but a line of text:
// a text run, or a plain container or label holding only one.
func lineText(n *Node) (string, bool) {
	if n.IsText() {
		return n.Text, true
	}
	if (n.Role == "generic" || n.Role == "label") && !n.Control && n.Name == "" && n.States == "" && n.Value == "" &&
		!n.Frame && len(n.Children) == 1 && n.Children[0].IsText() {
		return n.Children[0].Text, true
	}
	return "", false
}

// onlyMarks reports states that only say an element is clickable (a
// pointer cursor, a handler, a tabindex), nothing of its own.
func onlyMarks(states string) bool {
	for _, s := range strings.Fields(states) {
		switch s {
		case "clickable", "focusable":
		default:
			return false
		}
	}
	return true
}

// isBare reports a node with nothing of its own: no name, state, value,
// cells or frame, and nothing to operate. (Every printed node has a ref;
// a ref alone is not something of its own.)
func isBare(n *Node) bool {
	return n.Name == "" && !n.Control && n.States == "" && n.Value == "" && !n.Frame && len(n.Cells) == 0
}

// isContainer reports whether a node is a container the transform may drop
// or replace: generic, without a name, state, value or frame, and not a
// control.
func isContainer(n *Node) bool {
	return n.Role == "generic" && isBare(n)
}

// Blank reports whether text has nothing to read: it is empty or made only
// of white space (including no-break spaces) and invisible formatting
// characters such as zero-width spaces and joiners.
func Blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && r != '\u2800' {
			return false
		}
	}
	return true
}
