package snapshot

import (
	"strconv"
	"strings"
)

// Header names the surface a snapshot was taken of.
type Header struct {
	Surface string
	Title   string
	URL     string
}

// Render writes the text form of a tree: a first line naming the surface,
// then one node a line, indented two spaces per level:
//
//   - role "name" [state]… [ref=eN]: value
//
// A node whose only child is text prints it after a colon on its own line.
// A name computed from the node's content is not repeated by text children
// (a link "Home" does not print "Home" again below it); when the content
// holds more than text, the children are printed and the name is left out,
// since they carry it.
func Render(h Header, nodes []*Node) string {
	var b strings.Builder
	b.Grow(estimateSize(nodes))
	b.WriteString("surface ")
	b.WriteString(h.Surface)
	b.WriteString(": ")
	b.WriteString(quote(h.Title))
	if h.URL != "" {
		b.WriteByte(' ')
		b.WriteString(h.URL)
	}
	b.WriteByte('\n')
	for _, n := range nodes {
		writeNode(&b, n, 0, h.URL)
	}
	return b.String()
}

func estimateSize(nodes []*Node) int {
	size := 64
	Walk(nodes, func(n *Node, d int) bool {
		size += 2*d + 16 + len(n.Role) + len(n.Name) + len(n.Text) + len(n.Value)
		return true
	})
	return size
}

func allText(ns []*Node) bool {
	for _, c := range ns {
		if !c.IsText() {
			return false
		}
	}
	return true
}

func writeNode(b *strings.Builder, n *Node, depth int, base string) {
	for range depth {
		b.WriteString("  ")
	}
	b.WriteString("- ")
	if n.IsText() {
		b.WriteString("text: ")
		b.WriteString(oneLine(n.Text))
		b.WriteByte('\n')
		return
	}
	kids := n.Children
	name := n.Name
	if n.NameFromContent && len(kids) > 0 {
		if allText(kids) {
			kids = nil
		} else {
			name = ""
		}
	}
	b.WriteString(n.Role)
	if name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(name))
	}
	for _, s := range strings.Fields(n.States) {
		b.WriteString(" [")
		b.WriteString(s)
		b.WriteByte(']')
	}
	if n.URL != "" {
		b.WriteString(" [url=")
		b.WriteString(shortURL(n.URL, base))
		b.WriteByte(']')
	}
	if n.Ref != "" {
		b.WriteString(" [ref=")
		b.WriteString(n.Ref)
		b.WriteByte(']')
	}
	if n.FrameNote != "" {
		b.WriteString(" [")
		b.WriteString(n.FrameNote)
		b.WriteByte(']')
	}
	switch {
	case n.Value != "":
		b.WriteString(": ")
		b.WriteString(oneLine(n.Value))
	case len(kids) == 1 && kids[0].IsText() && n.Value == "":
		b.WriteString(": ")
		b.WriteString(oneLine(kids[0].Text))
		kids = nil
	case len(kids) > 0:
		b.WriteByte(':')
	}
	b.WriteByte('\n')
	for _, c := range kids {
		writeNode(b, c, depth+1, base)
	}
}

// quote writes a name as a double-quoted string, escaping only what would
// make it ambiguous.
func quote(s string) string {
	if !strings.ContainsAny(s, "\"\\\n\r") {
		return `"` + s + `"`
	}
	return strconv.Quote(s)
}

// oneLine keeps a value on its line: line breaks are shown as \n.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", `\n`)
}

// shortURL prints a link's address relative to the page when it shares the
// page's origin (the agent can still click it; the tokens are saved), and
// absolute otherwise.
func shortURL(u, base string) string {
	origin := originOf(base)
	if origin != "" && strings.HasPrefix(u, origin) && len(u) > len(origin) && u[len(origin)] == '/' {
		return u[len(origin):]
	}
	return u
}

func originOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(u[i+3:], '/')
	if j < 0 {
		return u
	}
	return u[:i+3+j]
}
