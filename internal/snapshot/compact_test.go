package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

// Tree builders for hand-written cases.

func txt(s string) *Node { return &Node{Role: "text", Text: s} }

func el(role string, kids ...*Node) *Node { return &Node{Role: role, Children: kids} }

func named(role, name string, kids ...*Node) *Node {
	return &Node{Role: role, Name: name, Children: kids}
}

func with(n *Node, f func(*Node)) *Node { f(n); return n }

// dump writes a tree in a compact one-line form that shows every field the
// transform must keep: role"name"#elem@ref[states]=value<url>{frame}(kids).
func dump(nodes []*Node) string {
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteByte(' ')
		}
		if n.IsText() {
			fmt.Fprintf(&b, "%q", n.Text)
			continue
		}
		b.WriteString(n.Role)
		if n.Name != "" {
			fmt.Fprintf(&b, "%q", n.Name)
		}
		if n.Elem != 0 {
			fmt.Fprintf(&b, "#%d", n.Elem)
		}
		if n.Ref != "" {
			b.WriteString("@" + n.Ref)
		}
		if n.States != "" {
			b.WriteString("[" + n.States + "]")
		}
		if n.Value != "" {
			fmt.Fprintf(&b, "=%q", n.Value)
		}
		if n.URL != "" {
			b.WriteString("<" + n.URL + ">")
		}
		if n.Frame {
			b.WriteString("{frame}")
		}
		if len(n.Children) > 0 {
			b.WriteString("(" + dump(n.Children) + ")")
		}
	}
	return b.String()
}

func TestBlank(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{" ", true},
		{" \t\n\r\f\v", true},
		{"\u00a0", true},             // no-break space
		{"\u00a0 \u00a0", true},      // no-break and plain spaces
		{"\u202f\u2007\u3000", true}, // narrow no-break, figure, ideographic spaces
		{"\u200b", true},             // zero-width space
		{"\u200c", true},             // zero-width non-joiner
		{"\u200d", true},             // zero-width joiner
		{"\ufeff", true},             // zero-width no-break space (BOM)
		{"\u200b\u00a0 \u200b", true},
		{"\u2060\u200e\u200f", true}, // word joiner, direction marks
		{"\u2800", true},             // braille blank
		{"a", false},
		{" a ", false},
		{"\u00a0x", false},
		{"\u200bx\u200b", false},
		{".", false},
		{"-", false},
		{"0", false},
		{"\u00b7", false}, // middle dot is visible
		{"😀", false},
	} {
		if got := Blank(tc.in); got != tc.want {
			t.Errorf("Blank(%+q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []*Node
		want string
	}{
		{"nothing", nil, ""},

		// Blank text.
		{"empty text", []*Node{txt("")}, ""},
		{"whitespace text", []*Node{txt(" \n\t ")}, ""},
		{"nbsp text", []*Node{txt("\u00a0")}, ""},
		{"zero-width space", []*Node{txt("\u200b")}, ""},
		{"zero-width non-joiner", []*Node{txt("\u200c")}, ""},
		{"zero-width joiner", []*Node{txt("\u200d")}, ""},
		{"byte order mark", []*Node{txt("\ufeff")}, ""},
		{"mixed blank", []*Node{txt("\u200b\u00a0 \u200c\u200d\ufeff")}, ""},
		{"text kept as written", []*Node{txt("  padded\u00a0")}, `"  padded\u00a0"`},
		{"blank text between words", []*Node{txt("a"), txt(" "), txt("b")}, `"a" "b"`},
		{"blank text inside a named node", []*Node{named("button", "Go", txt("\u200b"))}, `button"Go"`},

		// Unnamed containers.
		{"empty container", []*Node{el("generic")}, ""},
		{"container of blank text", []*Node{el("generic", txt(" "), txt("\u00a0"), txt("\u200b"))}, ""},
		{"nested empty containers", []*Node{el("generic", el("generic", el("generic")), el("generic", txt("\ufeff")))}, ""},
		{"container of one text", []*Node{el("generic", txt("hi"))}, `"hi"`},
		{"container of one element", []*Node{el("generic", named("button", "Go"))}, `button"Go"`},
		{"deep chain of containers", []*Node{el("generic", el("generic", el("generic", el("generic", txt("deep")))))}, `"deep"`},
		{"one child left after blank text", []*Node{el("generic", txt(" "), named("link", "Home"), txt("\u200b"))}, `link"Home"`},
		{"several children kept", []*Node{el("generic", txt("a"), txt("b"))}, `generic("a" "b")`},
		{"several children after unwrapping", []*Node{el("generic", el("generic", txt("a")), el("generic", el("generic", txt("b"))))}, `generic("a" "b")`},
		{
			"two sibling groups stay distinct",
			[]*Node{el("generic",
				el("generic", el("generic", txt("A1")), el("generic", named("button", "A2"))),
				el("generic", el("generic", txt("B1")), el("generic", named("button", "B2"))),
			)},
			`generic(generic("A1" button"A2") generic("B1" button"B2"))`,
		},
		{"container inside a semantic node", []*Node{el("listitem", el("generic", txt("x")))}, `listitem("x")`},

		// Containers that carry something stay, even empty or with one child.
		{"named container", []*Node{named("generic", "box")}, `generic"box"`},
		{"named container with one child", []*Node{named("generic", "box", txt("x"))}, `generic"box"("x")`},
		{"empty container with a ref goes", []*Node{with(el("generic"), func(n *Node) { n.Elem = 7 })}, ``},
		{"control container stays", []*Node{with(el("generic"), func(n *Node) { n.Elem = 7; n.Control = true })}, `generic#7`},
		{"container of its own text keeps its ref line", []*Node{with(el("generic", txt("x")), func(n *Node) { n.Ref = "e3" })}, `generic@e3("x")`},
		{"named wrapper of a child with its name is replaced", []*Node{with(named("generic", "Copy", named("button", "Copy")), func(n *Node) { n.Elem = 3 })}, `button"Copy"`},
		{"clickable wrapper of one control is replaced by it", []*Node{with(el("generic", with(named("combobox", "City"), func(n *Node) { n.Control = true })), func(n *Node) {
			n.Control, n.States, n.Elem = true, "clickable", 5
		})}, `combobox"City"`},
		{"text said by a sibling control's name goes, and its wrapper with it", []*Node{with(el("label", with(named("checkbox", "Agree"), func(n *Node) { n.Control = true }), el("generic", txt("Agree"))), func(n *Node) {
			n.Control, n.States = true, "clickable"
		})}, `checkbox"Agree"`},
		{"clickable wrapper of a control and other text stays", []*Node{with(el("generic", with(named("checkbox", "Agree"), func(n *Node) { n.Control = true }), txt("I agree")), func(n *Node) {
			n.Control, n.States = true, "clickable"
		})}, `generic[clickable](checkbox"Agree" "I agree")`},
		{"clickable wrapper takes the text of its plain text line", []*Node{with(el("generic", el("generic", txt("Show more"))), func(n *Node) {
			n.Control, n.States, n.Elem = true, "clickable", 8
		})}, `generic#8[clickable]("Show more")`},
		{"named wrapper of a child with another name stays", []*Node{named("generic", "Copy", named("button", "Paste"))}, `generic"Copy"(button"Paste")`},
		{"container with a ref and one element child is replaced", []*Node{with(el("generic", el("button")), func(n *Node) { n.Elem = 4 })}, `button`},
		{"container with a state", []*Node{with(el("generic", txt("x")), func(n *Node) { n.States = "expanded" })}, `generic[expanded]("x")`},
		{"container with a value", []*Node{with(el("generic"), func(n *Node) { n.Value = "v" })}, `generic="v"`},
		{"frame container", []*Node{with(el("generic"), func(n *Node) { n.Frame = true })}, `generic{frame}`},

		// Semantic nodes stay even when empty.
		{"empty image", []*Node{el("image")}, `image`},
		{"empty svg", []*Node{el("svg")}, `svg`},
		{"empty canvas", []*Node{el("canvas")}, `canvas`},
		{"empty iframe", []*Node{with(el("iframe"), func(n *Node) { n.Frame = true; n.Elem = 5 })}, `iframe#5{frame}`},
		{"empty listitem", []*Node{el("listitem")}, `listitem`},
		{"empty cell", []*Node{el("cell")}, `cell`},
		{"empty paragraph is dropped", []*Node{el("paragraph"), el("paragraph", txt("\u00a0"))}, ``},
		{"empty paragraph with only a ref goes; with a state or as a control it stays", []*Node{with(el("paragraph"), func(n *Node) { n.Ref = "e1" }),
			with(el("paragraph"), func(n *Node) { n.States = "focused" }), with(el("paragraph"), func(n *Node) { n.Ref = "e2"; n.Control = true })}, `paragraph[focused] paragraph@e2`},
		{"semantic nodes wrapped in containers", []*Node{
			el("generic", el("generic", el("image"))),
			el("generic", el("svg")),
			el("generic", el("canvas")),
			el("table", el("row", el("cell", txt("full")), el("cell", txt(" ")))),
			el("generic", el("generic", with(el("iframe"), func(n *Node) { n.Frame = true }))),
		}, `image svg canvas table(row(cell("full") cell)) iframe{frame}`},
		{"semantic node with one child is not unwrapped", []*Node{el("list", el("listitem", txt("x")))}, `list(listitem("x"))`},

		// What the transform must not touch.
		{
			"order, refs, values, urls kept",
			[]*Node{el("generic",
				txt("first"),
				with(named("link", "Home"), func(n *Node) { n.Elem = 1; n.Ref = "e1"; n.URL = "http://x.test/" }),
				el("generic", el("generic", with(named("textbox", "Name"), func(n *Node) {
					n.Elem = 2
					n.Ref = "e2"
					n.Value = "Ada"
					n.States = "required"
				}))),
				txt("last"),
			)},
			`generic("first" link"Home"#1@e1<http://x.test/> textbox"Name"#2@e2[required]="Ada" "last")`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Compact(tc.in)
			if d := dump(got); d != tc.want {
				t.Errorf("Compact = %s\n          want %s", d, tc.want)
			}
			// Idempotence: compacting again changes nothing.
			if d := dump(Compact(got)); d != tc.want {
				t.Errorf("Compact(Compact) = %s\n             want %s", d, tc.want)
			}
		})
	}
}

// Compact keeps the nodes it keeps (it does not copy them) and leaves the
// caller's top-level slice as it was.
func TestCompactReusesNodesAndKeepsInput(t *testing.T) {
	button := named("button", "Go")
	keep := el("generic", txt("a"), txt("b"))
	in := []*Node{el("generic", button), txt(" "), keep}
	before := append([]*Node(nil), in...)
	out := Compact(in)
	if len(out) != 2 || out[0] != button || out[1] != keep {
		t.Fatalf("Compact = %s, want the button and the kept container themselves", dump(out))
	}
	for i := range before {
		if in[i] != before[i] {
			t.Errorf("input slice element %d changed", i)
		}
	}
}

func TestCompactEmptyInput(t *testing.T) {
	if got := Compact(nil); len(got) != 0 {
		t.Errorf("Compact(nil) = %v", got)
	}
	if got := Compact([]*Node{}); len(got) != 0 {
		t.Errorf("Compact([]) = %v", got)
	}
}
