package snapshot

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Golden tests: testdata/<page>.agent.json is the page agent's output for a
// fixture page, recorded from real Chromium by the engine package
//
//	go test ./internal/engine/capture -run TestRecordAgentOutput -record
//
// and <page>.golden.txt / <page>.raw.golden.txt are what the agent reads
// for it, with and without the compact transform. Refresh the goldens with
//
//	go test ./internal/snapshot -run TestGolden -update
//
// and review them as diffs.
var update = flag.Bool("update", false, "rewrite testdata/*.golden.txt from the recorded agent output")

// goldenDoc is the document every recording is bound in: refs are then a
// function of the recording alone.
var goldenDoc = Doc{Frame: "F0", World: 1}

// recordings returns the page names of testdata/*.agent.json. Extra passes
// of a page (<page>.passN.agent.json) are not pages of their own.
func recordings(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".agent.json")
		if strings.Contains(name, ".pass") {
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		t.Fatal("no recordings in testdata")
	}
	return names
}

// loadRecording decodes a recording.
func loadRecording(t *testing.T, file string) *Page {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecodePage(string(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return p
}

// bindAll gives refs to the page's nodes in pre-order, as the engine's
// Tab.Snapshot does, and returns the refs in that order.
func bindAll(tab *Table, d Doc, nodes []*Node) []string {
	var refs []string
	Walk(nodes, func(n *Node, _ int) bool {
		if n.Elem != 0 {
			n.Ref = tab.Bind(d, n.Elem, n.Role, n.Name).Ref
			refs = append(refs, n.Ref)
		}
		return true
	})
	return refs
}

// renderRecording renders a recording as the engine would for a first
// snapshot of the page on surface s1.
func renderRecording(t *testing.T, file string, compact bool) string {
	t.Helper()
	p := loadRecording(t, file)
	bindAll(NewTable(new(Counter), ""), goldenDoc, p.Nodes)
	nodes := p.Nodes
	if compact {
		nodes = Compact(nodes)
	}
	return Render(Header{Surface: "s1", Title: p.Title, URL: p.URL}, nodes, RenderOptions{}).Text
}

func TestGolden(t *testing.T) {
	for _, name := range recordings(t) {
		t.Run(name, func(t *testing.T) {
			for _, g := range []struct {
				file    string
				compact bool
			}{
				{name + ".golden.txt", true},
				{name + ".raw.golden.txt", false},
			} {
				got := renderRecording(t, name+".agent.json", g.compact)
				path := filepath.Join("testdata", g.file)
				if *update {
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from the rendering of %s.agent.json (run with -update and review the diff):\n%s",
						g.file, name, lineDiff(string(want), got))
				}
			}
		})
	}
}

// TestGoldenFilesHaveRecordings catches goldens left behind when a
// recording is removed or renamed.
func TestGoldenFilesHaveRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		base := filepath.Base(f)
		name := strings.TrimSuffix(strings.TrimSuffix(base, ".golden.txt"), ".raw")
		if _, err := os.Stat(filepath.Join("testdata", name+".agent.json")); err != nil {
			t.Errorf("%s has no recording %s.agent.json", base, name)
		}
	}
}

// TestGoldenCompactInvariants checks, on real pages, what compact is for: it
// never adds lines, keeps every ref of a node that shows anything (only an
// empty node with nothing of its own goes, ref and all) and every non-blank
// text run, and is idempotent.
func TestGoldenCompactInvariants(t *testing.T) {
	for _, name := range recordings(t) {
		t.Run(name, func(t *testing.T) {
			raw := loadRecording(t, name+".agent.json")
			bindAll(NewTable(new(Counter), ""), goldenDoc, raw.Nodes)
			rawRefs := meaningfulRefs(raw.Nodes)
			rawTexts := texts(raw.Nodes)
			rawLines := strings.Count(Render(Header{Surface: "s1"}, raw.Nodes, RenderOptions{}).Text, "\n")
			rawSemantic := semanticNodes(raw.Nodes) // before compact rewrites children in place

			once := Compact(raw.Nodes)
			if got := refsOf(once); !slices.Equal(got, rawRefs) {
				t.Errorf("refs after compact = %v, want %v", got, rawRefs)
			}
			// Every text is still said: as text, or as the name of the
			// control it named (said once).
			said := map[string]bool{}
			for _, s := range texts(once) {
				said[s] = true
				if _, name, ok := strings.Cut(s, ":"); ok {
					said[name] = true
				}
			}
			for _, s := range rawTexts {
				if !said[s] && !said[strings.Join(strings.Fields(s), " ")] {
					t.Errorf("text %q is gone after compact", s)
				}
			}
			if got := semanticNodes(once); !slices.Equal(got, rawSemantic) {
				t.Errorf("semantic nodes after compact:\n%q\nwant\n%q", got, rawSemantic)
			}
			text1 := Render(Header{Surface: "s1"}, once, RenderOptions{}).Text
			if n := strings.Count(text1, "\n"); n > rawLines {
				t.Errorf("compact rendering has %d lines, raw %d", n, rawLines)
			}
			if text2 := Render(Header{Surface: "s1"}, Compact(once), RenderOptions{}).Text; text2 != text1 {
				t.Errorf("compact is not idempotent:\n%s", lineDiff(text1, text2))
			}
		})
	}
}

// TestCompactFixtureAcceptance is the spec's acceptance for the compact
// transform ("Compact snapshot text"): compact.html, with nested
// containers, blank text, two sibling groups, an iframe, an image, an SVG,
// a canvas and an empty table cell, captured twice in one document, gives
// identical compact text; the sibling groups stay distinct; every ref still
// resolves to its original node.
func TestCompactFixtureAcceptance(t *testing.T) {
	tab := NewTable(new(Counter), "")
	capture := func(file string) (string, []*Node, []string) {
		p := loadRecording(t, file)
		refs := bindAll(tab, goldenDoc, p.Nodes)
		nodes := Compact(p.Nodes)
		return Render(Header{Surface: "s1", Title: p.Title, URL: p.URL}, nodes, RenderOptions{}).Text, nodes, refs
	}
	text1, nodes1, refs1 := capture("compact.agent.json")
	text2, nodes2, refs2 := capture("compact.pass2.agent.json")
	if text1 != text2 {
		t.Fatalf("second capture renders differently:\n%s", lineDiff(text1, text2))
	}
	if !slices.Equal(refs1, refs2) {
		t.Errorf("refs of the second capture %v, want the first capture's %v", refs2, refs1)
	}
	if tab.Len() != len(refs1) {
		t.Errorf("table holds %d refs after two captures of one document, want %d", tab.Len(), len(refs1))
	}
	// Every ref resolves to the node it was given to, in both captures.
	for _, nodes := range [][]*Node{nodes1, nodes2} {
		Walk(nodes, func(n *Node, _ int) bool {
			if n.Ref == "" {
				return true
			}
			b, ok := tab.Lookup(n.Ref)
			if !ok {
				t.Errorf("%s does not resolve", n.Ref)
			} else if b.Doc != goldenDoc || b.Elem != n.Elem || b.Role != n.Role || b.Name != n.Name {
				t.Errorf("%s resolves to %+v, want elem %d %s %q", n.Ref, b, n.Elem, n.Role, n.Name)
			}
			return true
		})
	}

	// The page's content survives. (Which roles the agent gives the SVGs
	// and the table is the agent's business; that compact keeps whatever
	// semantic node it emitted is checked below.)
	for _, want := range []string{
		"MK-COMPACT-DEEP-3c1f", "MK-COMPACT-GROUP-A-a90b", "MK-COMPACT-GROUP-B-b17c",
		`"MK-COMPACT-IMG-5e02"`, `"MK-COMPACT-SVG-0d9a"`, "- canvas",
		"MK-COMPACT-CELL-88e1", `iframe "compact child"`, "MK-COMPACT-BOTTOM-f3a2",
	} {
		if !strings.Contains(text1, want) {
			t.Errorf("compact text lacks %q:\n%s", want, text1)
		}
	}
	// Every semantic node of the capture, empty ones included, is kept.
	raw := loadRecording(t, "compact.agent.json")
	bindAll(NewTable(new(Counter), ""), goldenDoc, raw.Nodes)
	if got, want := semanticNodes(nodes1), semanticNodes(raw.Nodes); !slices.Equal(got, want) {
		t.Errorf("semantic nodes after compact:\n%q\nwant\n%q", got, want)
	}
	// Blank text is gone: no zero-width or blank text line remains.
	for line := range strings.Lines(text1) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "- text:"); ok && Blank(rest) {
			t.Errorf("blank text survived compact: %q", line)
		}
	}

	// The two sibling groups stay distinct: each is one node holding its
	// own group's content and none of the other's.
	groupA := findGroup(nodes1, "MK-COMPACT-GROUP-A-a90b")
	groupB := findGroup(nodes1, "MK-COMPACT-GROUP-B-b17c")
	if groupA == nil || groupB == nil {
		t.Fatalf("sibling groups not found:\n%s", text1)
	}
	if groupA == groupB {
		t.Fatalf("the two sibling groups were merged:\n%s", text1)
	}
	a, b := strings.Join(texts(groupA.Children), "|"), strings.Join(texts(groupB.Children), "|")
	if !strings.Contains(a, "Alpha link") || strings.Contains(a, "GROUP-B") || strings.Contains(a, "Beta") {
		t.Errorf("group A holds %q", a)
	}
	if !strings.Contains(b, "Beta link") || strings.Contains(b, "GROUP-A") || strings.Contains(b, "Alpha") {
		t.Errorf("group B holds %q", b)
	}
	parent := parentOf(nodes1, groupA)
	if parent == nil || parent != parentOf(nodes1, groupB) {
		t.Errorf("groups A and B are no longer siblings under one container:\n%s", text1)
	}
}

// findGroup returns the outermost generic node with several children whose
// subtree holds the marker and that is not also holding the other group.
func findGroup(nodes []*Node, marker string) *Node {
	var found *Node
	Walk(nodes, func(n *Node, _ int) bool {
		if found != nil || n.IsText() {
			return false
		}
		if n.Role == "generic" && len(n.Children) > 1 {
			all := strings.Join(texts(n.Children), "|")
			if strings.Contains(all, marker) && strings.Count(all, "MK-COMPACT-GROUP-") == 1 {
				found = n
				return false
			}
		}
		return true
	})
	return found
}

func parentOf(nodes []*Node, child *Node) *Node {
	var parent *Node
	Walk(nodes, func(n *Node, _ int) bool {
		for _, c := range n.Children {
			if c == child {
				parent = n
			}
		}
		return parent == nil
	})
	return parent
}

// texts lists the non-blank text runs of a tree in order, with element
// names standing in for text folded into them.
func texts(nodes []*Node) []string {
	var out []string
	Walk(nodes, func(n *Node, _ int) bool {
		switch {
		case n.IsText():
			if !Blank(n.Text) {
				out = append(out, n.Text)
			}
		case n.Name != "":
			out = append(out, n.Role+":"+n.Name)
		}
		return true
	})
	return out
}

// semanticNodes lists, in order, every element node other than an
// unnamed container: what the compact transform must keep, empty or not.
// semanticNodes lists the nodes compact must keep: all but containers and
// empty paragraphs (which hold no text once blank text is gone).
func semanticNodes(nodes []*Node) []string {
	var out []string
	Walk(nodes, func(n *Node, _ int) bool {
		emptyParagraph := n.Role == "paragraph" && isBare(n) && texts(n.Children) == nil
		if !n.IsText() && !isContainer(n) && !emptyParagraph {
			out = append(out, fmt.Sprintf("%s %q %s", n.Role, n.Name, n.Ref))
		}
		return true
	})
	return out
}

// meaningfulRefs lists the refs of nodes that show something: a control,
// or a node with something of its own or any non-blank text or such a node
// below it.
func meaningfulRefs(nodes []*Node) []string {
	var shows func(n *Node) bool
	shows = func(n *Node) bool {
		if n.IsText() {
			return !Blank(n.Text)
		}
		if !isBare(n) || n.Role != "generic" && n.Role != "paragraph" {
			return true
		}
		return slices.ContainsFunc(n.Children, shows)
	}
	var out []string
	Walk(nodes, func(n *Node, _ int) bool {
		if n.Ref != "" && shows(n) {
			out = append(out, n.Ref)
		}
		return true
	})
	return out
}

func refsOf(nodes []*Node) []string {
	var out []string
	Walk(nodes, func(n *Node, _ int) bool {
		if n.Ref != "" {
			out = append(out, n.Ref)
		}
		return true
	})
	return out
}

// lineDiff shows the first differing lines of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
