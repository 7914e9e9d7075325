package snapshot

import (
	"strings"
	"testing"
)

func TestDecodePage(t *testing.T) {
	const in = `{
		"url": "https://x.test/a", "title": "A page", "count": 42,
		"nodes": [
			"top text",
			{"r": "link", "n": "Home", "nf": 1, "i": 3, "u": "https://x.test/", "c": ["Home"]},
			{"r": "textbox", "n": "Name", "i": 4, "s": "required disabled", "v": "Ada"},
			{"r": "iframe", "n": "ad", "i": 5, "fr": 1},
			{"r": "generic", "c": [{"r": "list", "c": [{"r": "listitem", "c": ["one", {"r": "button", "n": "x", "nf": 0}]}]}]},
			""
		]
	}`
	p, err := DecodePage(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != "https://x.test/a" || p.Title != "A page" || p.Count != 42 || p.Error != "" {
		t.Errorf("page = %+v", p)
	}
	want := `"top text" ` +
		`link"Home"#3<https://x.test/>("Home") ` +
		`textbox"Name"#4[required disabled]="Ada" ` +
		`iframe"ad"#5{frame} ` +
		`generic(list(listitem("one" button"x"))) ` +
		`""`
	if got := dump(p.Nodes); got != want {
		t.Errorf("nodes = %s\n   want %s", got, want)
	}
	if !p.Nodes[1].NameFromContent {
		t.Error(`"nf": 1 did not set NameFromContent`)
	}
	btn := p.Nodes[4].Children[0].Children[0].Children[1]
	if btn.NameFromContent {
		t.Error(`"nf": 0 set NameFromContent`)
	}
	for i, n := range p.Nodes {
		if n.Ref != "" || n.FrameNote != "" {
			t.Errorf("node %d: decoding set engine fields: %+v", i, n)
		}
	}
	if p.Nodes[0].Role != "text" || !p.Nodes[0].IsText() || p.Nodes[0].Text != "top text" {
		t.Errorf("a JSON string must decode as a text run: %+v", p.Nodes[0])
	}
	if p.Nodes[1].IsText() {
		t.Error("an object decoded as text")
	}
	for i, n := range p.Nodes {
		if n.NoRef {
			t.Errorf("node %d: NoRef without \"nr\"", i)
		}
	}
}

// A node printed to be read but given no ref ("nr": a closed list's item)
// keeps its element id.
func TestDecodePageNoRef(t *testing.T) {
	p, err := DecodePage(`{"url": "u", "nodes": [{"r": "listbox", "n": "Cities", "i": 7, "nr": 1, "c": [{"r": "option", "n": "Oslo", "i": 8, "nr": 1}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l := p.Nodes[0]
	if !l.NoRef || l.Elem != 7 || l.Control || !l.Children[0].NoRef || l.Children[0].Elem != 8 {
		t.Errorf("nodes = %+v, %+v", l, l.Children[0])
	}
}

func TestDecodePageTextKeepsCharacters(t *testing.T) {
	p, err := DecodePage(`{"url":"","title":"","nodes":["a\u00a0b\u200b\n\"q\"", "\ud83d\ude00"],"count":0}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Nodes[0].Text; got != "a\u00a0b\u200b\n\"q\"" {
		t.Errorf("text = %q", got)
	}
	if got := p.Nodes[1].Text; got != "😀" {
		t.Errorf("surrogate pair = %q", got)
	}
}

func TestDecodePageError(t *testing.T) {
	p, err := DecodePage(`{"url":"about:blank","title":"","nodes":[],"count":0,"error":"no body"}`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Error != "no body" || len(p.Nodes) != 0 {
		t.Errorf("page = %+v", p)
	}
}

func TestDecodePageRejects(t *testing.T) {
	for _, in := range []string{
		``,
		`not json`,
		`{"url": "x", "nodes": [`,
		`{"nodes": [42]}`,
		`{"nodes": [["nested array"]]}`,
		`{"nodes": [{"r": "button", "i": "seven"}]}`,
		`{"nodes": [{"r": "link", "c": [true]}]}`,
		`{"nodes": "text"}`,
		`[]`,
	} {
		if p, err := DecodePage(in); err == nil {
			t.Errorf("DecodePage(%q) = %+v, want an error", in, p)
		} else if !strings.HasPrefix(err.Error(), "snapshot: decoding page agent output") {
			t.Errorf("DecodePage(%q): error %q lacks its context", in, err)
		}
	}
}

func TestWalk(t *testing.T) {
	nodes := []*Node{
		el("main", el("list", el("listitem", txt("a")), el("listitem", txt("b")))),
		named("button", "Go"),
	}
	var visited []string
	Walk(nodes, func(n *Node, depth int) bool {
		visited = append(visited, strings.Repeat(".", depth)+n.Role+n.Text)
		return true
	})
	want := "main .list ..listitem ...texta ..listitem ...textb button"
	if got := strings.Join(visited, " "); got != want {
		t.Errorf("pre-order = %s, want %s", got, want)
	}

	visited = nil
	Walk(nodes, func(n *Node, depth int) bool {
		visited = append(visited, n.Role)
		return n.Role != "list" // skip the list's children
	})
	if got := strings.Join(visited, " "); got != "main list button" {
		t.Errorf("with list skipped = %s", got)
	}
}

func TestHasState(t *testing.T) {
	n := &Node{States: "checked disabled level=2 expanded=false"}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"checked", true},
		{"disabled", true},
		{"level", true},
		{"expanded", true}, // present, with a value
		{"check", false},
		{"level=2", true},
		{"selected", false},
		{"", false},
	} {
		if got := n.HasState(tc.s); got != tc.want {
			t.Errorf("HasState(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	if (&Node{}).HasState("checked") {
		t.Error("a node without states has one")
	}
}

func TestResolveReusedNodes(t *testing.T) {
	first, err := DecodePage(`{"url":"u","seq":1,"nodes":[{"r":"table","m":3,"c":[{"r":"row","m":1,"cs":["a","b"]},{"r":"row","m":2,"cs":["c"]}]},"tail"]}`)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := first.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 3 || keys[2].Cells[0] != "c" {
		t.Fatalf("keys of the first walk: %v", keys)
	}
	// The next walk changed the table (a new node, key 4) and kept row 1
	// and row 2, sent by key.
	next, err := DecodePage(`{"url":"u","seq":2,"nodes":[{"r":"table","m":4,"c":[{"@":2},{"r":"row","i":9,"cs":["new"]},{"@":1}]},"tail"]}`)
	if err != nil {
		t.Fatal(err)
	}
	keys2, err := next.Resolve(keys)
	if err != nil {
		t.Fatal(err)
	}
	tab := next.Nodes[0]
	if len(tab.Children) != 3 || tab.Children[0] != keys[2] || tab.Children[2] != keys[1] || tab.Children[1].Cells[0] != "new" {
		t.Fatalf("resolved table: %+v", tab.Children)
	}
	if len(keys2) != 3 || keys2[4] != tab || keys2[1] != keys[1] || keys2[3] != nil {
		t.Fatalf("keys of the second walk: %v", keys2)
	}
	// A key the previous walk does not have fails, naming it.
	bad, err := DecodePage(`{"url":"u","seq":3,"nodes":[{"@":77}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Resolve(keys2); err == nil || !strings.Contains(err.Error(), "77") {
		t.Fatalf("missing key: %v", err)
	}
	// A reused node carries nothing of its own.
	if _, err := DecodePage(`{"url":"u","nodes":[{"@":1,"r":"button"}]}`); err == nil {
		t.Fatal("a reused node with a role of its own was accepted")
	}
}

func TestCloneIsDeep(t *testing.T) {
	orig := []*Node{{Role: "list", Children: []*Node{{Role: "listitem", Name: "a", Children: []*Node{{Role: "text", Text: "x"}}}}}, {Role: "text", Text: "y"}}
	c := Clone(orig)
	c[0].Children[0].Name = "changed"
	c[0].Children[0].Children = nil
	c[0].Children = append(c[0].Children, &Node{Role: "listitem"})
	c[1].Text = "z"
	if orig[0].Children[0].Name != "a" || len(orig[0].Children) != 1 || len(orig[0].Children[0].Children) != 1 || orig[1].Text != "y" {
		t.Fatalf("changing the clone changed the original: %+v", orig[0].Children[0])
	}
	if Clone(nil) != nil || len(Clone([]*Node{})) != 0 {
		t.Fatal("Clone of nothing")
	}
}
