package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/internal/safetext"
)

// Header names the surface a snapshot was taken of.
type Header struct {
	Surface string
	Title   string
	URL     string
}

// RenderOptions change what Render prints. The zero value prints the whole
// tree without locators.
type RenderOptions struct {
	// Locator, if set, gives a ref's locator to print beside it ("" for
	// none).
	Locator func(ref string) string
	// MaxChars truncates the output at a line boundary once it would pass
	// this many characters, and says so in a last line (0: no limit).
	MaxChars int
	// Partial says the tree is only the beginning of the page's (its walk
	// stopped at a budget): the output says it is truncated even when it
	// fits, and counts the lines as "more than" the tree's.
	Partial bool
}

// Rendered is the text of a snapshot and what it holds.
type Rendered struct {
	Text      string
	Lines     int // node lines shown
	Total     int // node lines in the whole tree
	Truncated bool
}

// Render writes the text form of a tree: a first line naming the surface,
// then one node a line, indented two spaces per level:
//
//   - role "name" [state]… [ref=eN]: value
//
// A node whose first child is text prints it after a colon on its own line
// (its other children follow below),
// and a table row whose cells are only text prints them there, quoted
// (- row [ref=e9]: "1" "Item 1" "").
// A name computed from the node's content is not repeated by text children
// (a link "Home" does not print "Home" again below it); when the content
// holds more than text, the children are printed and the name is left out,
// since they carry it, except a short one on a role looked up by name
// (lookedUpByName). In a row, a cell that is only text
// prints as that text, quoted ("Item 1"), its role being plain from its
// place. A link to a place on the same page prints its fragment (#id); a
// link on the same origin, its path.
func Render(h Header, nodes []*Node, o RenderOptions) Rendered {
	r := renderer{o: o, base: h.URL}
	r.b.Grow(estimateSize(nodes))
	r.b.WriteString("surface ")
	r.b.WriteString(h.Surface)
	r.b.WriteString(": ")
	r.b.WriteString(quote(bounded(h.Title, maxName)))
	if h.URL != "" {
		r.b.WriteByte(' ')
		r.b.WriteString(bounded(inlineURL(h.URL), maxURL))
	}
	r.b.WriteByte('\n')
	for _, n := range nodes {
		r.node(n, 0, "")
	}
	out := Rendered{Text: r.b.String(), Lines: r.lines, Total: r.lines}
	if (o.MaxChars > 0 && len(out.Text) > o.MaxChars) || o.Partial {
		out = truncate(out, o.MaxChars, o.Partial)
	}
	return out
}

// truncate cuts the text at the last line that fits in limit characters,
// keeping room for the note that says what was left out. How to get the
// rest is each front end's to say, in its own terms.
func truncate(r Rendered, limit int, partial bool) Rendered {
	note := func(shown int) string {
		if partial {
			return fmt.Sprintf("[truncated: %d of more than %d lines shown]\n", shown, r.Total)
		}
		return fmt.Sprintf("[truncated: %d of %d lines shown]\n", shown, r.Total)
	}
	if limit <= 0 {
		limit = len(r.Text) + len(note(r.Total))
	}
	budget := limit - len(note(r.Total))
	cut := strings.LastIndexByte(r.Text[:max(0, min(budget, len(r.Text)))], '\n') + 1
	head := r.Text[:max(0, cut)]
	if cut <= 0 {
		// Not even the surface line fits: cut it too, so that the limit
		// bounds the whole text.
		first := r.Text[:strings.IndexByte(r.Text, '\n')]
		keep := max(0, budget-len(" …[cut]\n"))
		for keep > 0 && !utf8.RuneStart(first[keep]) {
			keep-- // not inside a character
		}
		head = first[:keep] + " …[cut]\n"
	}
	shown := strings.Count(head, "\n") - 1 // less the surface line
	if shown < 0 {
		shown = 0
	}
	r.Text = head + note(shown)
	r.Lines = shown
	r.Truncated = true
	return r
}

type renderer struct {
	b     strings.Builder
	o     RenderOptions
	base  string
	lines int
}

func estimateSize(nodes []*Node) int {
	size := 64
	Walk(nodes, func(n *Node, d int) bool {
		size += 2*d + 16 + len(n.Role) + len(n.Name) + len(n.Text) + len(n.Value)
		for _, c := range n.Cells {
			size += len(c) + 3
		}
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

func (r *renderer) node(n *Node, depth int, parentRole string) {
	b := &r.b
	r.lines++
	for range depth {
		b.WriteString("  ")
	}
	b.WriteString("- ")
	if n.IsText() {
		b.WriteString("text")
		if n.Ref != "" {
			// Text directly in the document's root: its ref is the root's.
			b.WriteString(" [ref=")
			b.WriteString(n.Ref)
			b.WriteByte(']')
		}
		b.WriteString(": ")
		b.WriteString(inlineText(bounded(n.Text, maxText)))
		b.WriteByte('\n')
		return
	}
	kids := n.Children
	name := bounded(n.Name, maxName)
	if n.NameFromContent && len(kids) > 0 {
		if allText(kids) {
			kids = nil
		} else if !lookedUpByName[n.Role] || len(name) > maxContentName {
			name = ""
		}
	}
	plainCell := parentRole == "row" && n.Role == "cell" && len(kids) == 0 && n.NameFromContent && name != "" &&
		n.States == "" && n.Ref == "" && n.Value == "" && n.URL == ""
	if plainCell {
		b.WriteString(quote(name))
		b.WriteByte('\n')
		return
	}
	b.WriteString(n.Role)
	if name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(name))
	}
	for _, s := range strings.Fields(n.States) {
		b.WriteString(" [")
		b.WriteString(safetext.NoRefs(safetext.Line(s))) // a state may carry a page's value (level=…)
		b.WriteByte(']')
	}
	if n.URL != "" {
		b.WriteString(" [url=")
		b.WriteString(bounded(shortURL(inlineURL(n.URL), r.base), maxURL))
		b.WriteByte(']')
	}
	if n.Ref != "" {
		b.WriteString(" [ref=")
		b.WriteString(n.Ref)
		b.WriteByte(']')
		if r.o.Locator != nil {
			// A locator with a line break in it (a testid may hold one)
			// would split the node's line: the ref alone finds it.
			if l := r.o.Locator(n.Ref); l != "" && !strings.ContainsAny(l, "\n\r") {
				b.WriteString(" [locator=")
				b.WriteString(safetext.NoRefs(safetext.Line(l)))
				b.WriteByte(']')
			}
		}
	}
	if n.FrameNote != "" {
		b.WriteString(" [")
		b.WriteString(n.FrameNote)
		b.WriteByte(']')
	}
	switch {
	case n.Value != "":
		b.WriteString(": ")
		b.WriteString(inlineText(bounded(n.Value, maxValue)))
	case len(n.Cells) > 0:
		b.WriteByte(':')
		for _, c := range n.Cells {
			b.WriteByte(' ')
			b.WriteString(quote(bounded(c, maxName)))
		}
	case len(kids) == 1 && kids[0].IsText() || len(kids) > 1 && kids[0].IsText() && !allText(kids):
		// Its text leads its line; what follows it (a button beside the
		// text of a list item) is below.
		b.WriteString(": ")
		b.WriteString(inlineText(bounded(kids[0].Text, maxText)))
		kids = kids[1:]
	case len(kids) > 0:
		b.WriteByte(':')
	}
	b.WriteByte('\n')
	for _, c := range kids {
		r.node(c, depth+1, n.Role)
	}
}

// lookedUpByName are roles an agent finds by their name (the column to
// sort, the folder to open, the tab to switch to): a short name from their
// content stays on their line beside children that hold more than text.
// Other roles (a cell, a row) leave it to the children, which say it.
var lookedUpByName = map[string]bool{
	"columnheader": true, "rowheader": true, "treeitem": true, "tab": true, "option": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "link": true, "heading": true,
}

// maxContentName bounds such a repeated name.
const maxContentName = 60

// ElementLine is how a snapshot prints an element with a ref (role "name"
// [ref=eN]), for a person to recognise the element a write names. The
// name is quoted as the snapshot quotes it (it can forge no ref) and cut
// at maxLineName characters: the line is printed as it is.
func ElementLine(role, name, ref string) string {
	if role == "" {
		role = "generic"
	}
	line := role
	if r := []rune(name); len(r) > maxLineName {
		name = string(r[:maxLineName]) + "…"
	}
	if name != "" {
		line += " " + quote(name)
	}
	return line + " [ref=" + ref + "]"
}

// maxLineName bounds the name in an ElementLine.
const maxLineName = 120

// quote writes a name as a double-quoted string, escaping only what would
// make it ambiguous or act on a terminal (Go's escapes: \", \\, \n, \x1b,
// \u202e), and never a ref: see safetext.NoRefs.
func quote(s string) string {
	if !strings.ContainsAny(s, "\"\\") && safetext.Clean(s) {
		return safetext.NoRefs(`"` + s + `"`)
	}
	return safetext.NoRefs(strconv.Quote(s))
}

// inlineText writes text a page controls after a line's colon: as it is
// when it is plain, quoted when it holds a bracket (it could otherwise
// read as a state or a ref of the line: a paragraph "Pay [ref=e1] -
// button" prints "Pay [ref\=e1] - button", quoted, one text) or starts
// with a quote (it would read as quoted). Line breaks and terminal
// controls are escaped either way.
func inlineText(s string) string {
	s = oneLine(s)
	if strings.IndexByte(s, '[') >= 0 || strings.IndexByte(s, ']') >= 0 || strings.HasPrefix(s, `"`) {
		return quote(s)
	}
	return safetext.Line(s)
}

// A page may give any string any length; a snapshot line bounds what it
// prints of each, as package wire bounds the same strings in every output
// (titles and names 300 characters, addresses 2,048, values 300, a text
// node 4,000), the cut marked with how much was left out.
const (
	maxName  = 300
	maxURL   = 2048
	maxValue = 300
	maxText  = 4000
)

// bounded bounds s to n characters (runes), marking the cut. It is
// wire.Cut's twin: package wire takes only the standard library, and the
// renderer sits below the contract it would otherwise import.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…[+" + strconv.Itoa(total-n) + " chars]"
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

// inlineURL drops ASCII tabs and line breaks from an address, as the URL
// parser does, and encodes spaces, brackets and quotes: an SVG link's href
// is its attribute as written, and a line break in it would split the
// node's line.
func inlineURL(u string) string {
	if !strings.ContainsAny(u, "\t\n\r []\"") {
		return safetext.Line(u)
	}
	return safetext.Line(urlBreaks.Replace(u))
}

var urlBreaks = strings.NewReplacer("\t", "", "\n", "", "\r", "",
	// Nor can it close the [url=…] it is printed in and add a state or a
	// ref of its own: what a URL would percent-encode anyway is encoded.
	" ", "%20", "[", "%5B", "]", "%5D", "\"", "%22")

// shortURL prints a link's address as briefly as it stays unambiguous on
// this page: "#id" for a place on the same document, the path for the same
// origin, the whole URL otherwise. The agent can still click it.
func shortURL(u, base string) string {
	if base != "" {
		doc := base
		if i := strings.IndexByte(doc, '#'); i >= 0 {
			doc = doc[:i]
		}
		if strings.HasPrefix(u, doc) && len(u) > len(doc) && u[len(doc)] == '#' {
			return u[len(doc):]
		}
	}
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
