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
