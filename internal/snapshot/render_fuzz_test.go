package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/internal/safetext"

	"github.com/loupe-dev/loupe/internal/locator"
)

// fuzzTree builds a snapshot tree from fuzz input: shape decides the
// structure and which fields are set, text supplies every string a page
// could choose (names, text, values, cells, states, links, the title, and
// testids that become locators). Roles, refs and frame notes are the
// engine's and come from its vocabulary.
type fuzzTree struct {
	shape []byte
	text  string
	nodes int
	refs  []string
	locs  map[string]string // ref -> locator
	strs  []string          // every page-given string handed out
}

var (
	fuzzRoles = []string{
		"text", "generic", "button", "link", "heading", "row", "cell", "columnheader", "textbox",
		"iframe", "list", "listitem", "treeitem", "table", "checkbox", "text", "option",
	}
	fuzzStates = []string{"checked", "disabled expanded", "level=2", "selected focused", "aria-hidden"}
	fuzzNotes  = []string{"frame not loaded", "frame unreadable: timed out", "more"}
)

const fuzzBase = "https://x.test/a/b?q=1"

func (g *fuzzTree) next() byte {
	if len(g.shape) == 0 {
		return 0
	}
	b := g.shape[0]
	g.shape = g.shape[1:]
	return b
}

// str cuts the next string off text at a character boundary and rotates
// text so later strings differ; a length byte with its top bit set
// repeats the string, so that the bounds on long strings are reached.
func (g *fuzzTree) str() string {
	b := g.next()
	n := min(int(b&0x3f), len(g.text))
	for n < len(g.text) && !utf8.RuneStart(g.text[n]) {
		n++
	}
	s := g.text[:n]
	g.text = g.text[n:] + s
	if b&0x80 != 0 {
		s = strings.Repeat(s, 80)
	}
	g.strs = append(g.strs, s)
	return s
}

func (g *fuzzTree) node(depth int) *Node {
	g.nodes++
	role := fuzzRoles[int(g.next())%len(fuzzRoles)]
	if role == "text" {
		return &Node{Role: "text", Text: g.str()}
	}
	fl := g.next()
	n := &Node{Role: role, NameFromContent: fl&1 != 0, Control: fl&2 != 0}
	if fl&4 != 0 {
		n.Name = g.str()
	}
	if fl&8 != 0 {
		n.Ref = "e" + strconv.Itoa(len(g.refs)+1)
		g.refs = append(g.refs, n.Ref)
		switch g.next() % 3 {
		case 1:
			g.locs[n.Ref] = locator.Step{Kind: locator.StepTestID, Value: g.str()}.String()
		case 2:
			g.locs[n.Ref] = locator.RoleStep(role, g.str()).String()
		}
	}
	if fl&16 != 0 {
		n.Value = g.str()
	}
	if fl&32 != 0 {
		n.States = fuzzStates[int(g.next())%len(fuzzStates)] + " " + g.str()
	}
	if fl&64 != 0 {
		n.URL = []string{fuzzBase + "#", "https://x.test/", "https://y.test/", ""}[g.next()%4] + g.str()
	}
	if fl&128 != 0 {
		for range g.next() % 4 {
			n.Cells = append(n.Cells, g.str())
		}
	}
	more := g.next()
	if more&1 != 0 {
		n.FrameNote = fuzzNotes[int(more>>1)%len(fuzzNotes)]
	}
	if depth < 8 {
		for range (more >> 3) % 4 {
			if g.nodes < 300 {
				n.Children = append(n.Children, g.node(depth+1))
			}
		}
	}
	return n
}

// FuzzRender renders random trees: the text is valid UTF-8 when every
// string in the tree is, each node is one line, each ref is printed once
// and nothing the page wrote reads as a ref (every "[ref=" in the text is
// one of the tree's refs), no terminal control or bidi override is left
// raw, and MaxChars (from 64 up) bounds the text, which is then the whole text
// cut after a line and marked, Truncated set iff something was cut.
func FuzzRender(f *testing.F) {
	f.Add([]byte{}, "", uint16(0))
	f.Add([]byte{2, 0x0c, 3, 0, 0x08}, "Save", uint16(0))
	f.Add([]byte{5, 0x1c, 4, 0x40, 0x18, 0, 0x05, 0, 6, 0x05, 7, 0, 4, 0, 0}, "Item 1Item 2", uint16(80))
	f.Add([]byte{3, 0x4c, 5, 0, 7, 0, 0x08, 2}, "Home\nx", uint16(64))
	f.Add([]byte{8, 0x3c, 0x84, 0x04, 1, 0x83, 0x09, 0x90, 0x06}, "ünïcödé \"quoted\"\r\n", uint16(200))
	f.Add([]byte{1, 0xff, 0xbf, 0xbf, 0xbf, 1, 0xbf, 0xbf, 0x98}, "long text ", uint16(100))
	f.Add([]byte{0, 0x80}, "title ", uint16(64))
	// A line break in a link's address (an SVG href is taken as written)
	// and in a testid that becomes a locator.
	f.Add([]byte{0, 3, 0x40, 1, 5, 0}, "x\n- button", uint16(0))
	f.Add([]byte{0, 2, 0x08, 1, 3, 0}, "a\nb", uint16(0))
	f.Fuzz(func(t *testing.T, shape []byte, text string, limit uint16) {
		g := &fuzzTree{shape: shape, text: text, locs: map[string]string{}}
		h := Header{Surface: "t1", Title: g.str(), URL: fuzzBase}
		var nodes []*Node
		for len(g.shape) > 0 && g.nodes < 300 {
			nodes = append(nodes, g.node(0))
		}
		loc := func(ref string) string { return g.locs[ref] }

		valid := true
		for _, s := range g.strs {
			valid = valid && utf8.ValidString(s)
		}
		full := Render(h, nodes, RenderOptions{Locator: loc})
		if valid && !utf8.ValidString(full.Text) {
			t.Fatalf("invalid UTF-8 from valid strings:\n%s", full.Text)
		}
		if full.Truncated || full.Lines != full.Total {
			t.Fatalf("no limit: Truncated %v, Lines %d of %d", full.Truncated, full.Lines, full.Total)
		}
		if got := strings.Count(full.Text, "\n"); got != full.Total+1 || !strings.HasSuffix(full.Text, "\n") {
			t.Fatalf("%d node lines in %d lines of text, want one line each after the surface line:\n%s", full.Total, got, full.Text)
		}
		for _, r := range g.refs {
			if c := strings.Count(full.Text, "[ref="+r+"]"); c != 1 {
				t.Fatalf("ref %s printed %d times:\n%s", r, c, full.Text)
			}
		}
		if c := strings.Count(strings.ToLower(full.Text), "[ref="); c != len(g.refs) {
			t.Fatalf("%d refs in the tree, %d [ref= in the text:\n%s", len(g.refs), c, full.Text)
		}
		if valid && safetext.Line(strings.ReplaceAll(full.Text, "\n", "")) != strings.ReplaceAll(full.Text, "\n", "") {
			t.Fatalf("a control or bidi override left raw:\n%q", full.Text)
		}

		n := int(limit)
		got := Render(h, nodes, RenderOptions{Locator: loc, MaxChars: n})
		if valid && !utf8.ValidString(got.Text) {
			t.Fatalf("MaxChars %d: invalid UTF-8 from valid strings:\n%s", n, got.Text)
		}
		if n < 64 {
			return
		}
		if len(got.Text) > n {
			t.Fatalf("MaxChars %d: %d bytes:\n%s", n, len(got.Text), got.Text)
		}
		if got.Truncated != (len(full.Text) > n) {
			t.Fatalf("MaxChars %d, whole text %d bytes: Truncated %v", n, len(full.Text), got.Truncated)
		}
		if !got.Truncated {
			if got != full {
				t.Fatalf("MaxChars %d: not truncated but %+v differs from %+v", n, got, full)
			}
			return
		}
		note := fmt.Sprintf("[truncated: %d of %d lines shown]\n", got.Lines, full.Total)
		head, ok := strings.CutSuffix(got.Text, note)
		if !ok || got.Total != full.Total {
			t.Fatalf("MaxChars %d: truncated text does not end in %q:\n%s", n, note, got.Text)
		}
		if first, cut := strings.CutSuffix(head, " …[cut]\n"); cut && got.Lines == 0 && !strings.Contains(first, "\n") {
			// Not even the surface line fitted.
			surface := full.Text[:strings.IndexByte(full.Text, '\n')]
			if !strings.HasPrefix(surface, first) || len(first) >= len(surface) {
				t.Fatalf("MaxChars %d: %q is not a cut of the surface line of\n%s", n, head, full.Text)
			}
			return
		}
		if !strings.HasPrefix(full.Text, head) || strings.Count(head, "\n") != got.Lines+1 || got.Lines >= full.Total {
			t.Fatalf("MaxChars %d: %d lines shown, head %q is not the first lines of\n%s", n, got.Lines, head, full.Text)
		}
		// The next line would not have fitted beside the longest note.
		nextLine := full.Text[len(head):]
		nextLine = nextLine[:strings.IndexByte(nextLine, '\n')+1]
		if budget := n - len(fmt.Sprintf("[truncated: %d of %d lines shown]\n", full.Total, full.Total)); len(head)+len(nextLine) <= budget {
			t.Fatalf("MaxChars %d: cut before %q, which fits", n, nextLine)
		}
		for _, r := range g.refs {
			if c := strings.Count(got.Text, "[ref="+r+"]"); c != strings.Count(head, "[ref="+r+"]") || c > 1 {
				t.Fatalf("MaxChars %d: ref %s printed %d times:\n%s", n, r, c, got.Text)
			}
		}
	})
}
