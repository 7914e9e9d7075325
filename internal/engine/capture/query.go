package capture

import (
	"context"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// QueryOptions says what to find. Role, Name and Text combine (all given
// must hold); at least one is needed.
type QueryOptions struct {
	// Role is the role as snapshots show it (button, link, textbox, …).
	Role string
	// Name matches the accessible name: a case-insensitive substring, or
	// the whole name (white space collapsed) with Exact.
	Name string
	// Text matches the text inside an element (case-insensitive
	// substring); only the innermost elements holding it match, not every
	// ancestor.
	Text  string
	Exact bool
	// Within searches only under one element (a ref or a locator).
	Within string
	// FrameOf searches only the frame that holds this ref (and the frames
	// below it).
	FrameOf string
	// Limit caps the matches listed (default 20); Count is always exact.
	Limit int
}

// QueryMatch is one element found.
type QueryMatch struct {
	Ref     string `json:"ref,omitempty"` // empty for nodes that take no action (a paragraph)
	Role    string `json:"role"`
	Name    string `json:"name,omitempty"`
	States  string `json:"states,omitempty"`
	FrameID string `json:"frameId,omitempty"` // omitted for the top document
	Text    string `json:"text,omitempty"`    // the start of its text, when Text was asked for
}

// QueryResult lists what a query found.
type QueryResult struct {
	Surface   string       `json:"surface"`
	Count     int          `json:"count"`
	Ambiguous bool         `json:"ambiguous"` // more than one match
	Matches   []QueryMatch `json:"matches"`
}

// Query finds elements by role, name and text, the way a snapshot sees
// them (hidden elements never match), and gives each a ref of this surface.
// It reports every match and whether there is more than one, so a caller
// never acts on a guess. It captures like a snapshot (every frame, or the
// Within subtree) and changes nothing on the page.
func Query(ctx context.Context, t *engine.Surface, o QueryOptions) (*QueryResult, error) {
	if o.Role == "" && o.Name == "" && o.Text == "" {
		return nil, apitype.Errorf(apitype.BadInput, "give a role, a name or a text to find")
	}
	if o.Limit <= 0 {
		o.Limit = 20
	}
	return engine.Exclusively(ctx, t, func() (*QueryResult, error) {
		frame := ""
		if o.FrameOf != "" {
			el, err := Resolve(ctx, t, o.FrameOf)
			if err != nil {
				return nil, err
			}
			frame = el.Frame
		}
		caps, _, _, err := captureFor(ctx, t, SnapshotOptions{Scope: o.Within}, nil)
		if err != nil {
			return nil, err
		}
		bindRefs(t, caps, &Snapshot{})
		in := map[string]bool{}
		if frame != "" {
			// The ref's frame and every frame below it.
			for _, c := range caps {
				for id := c.id; id != ""; id = parentOf(caps, id) {
					if id == frame {
						in[c.id] = true
						break
					}
				}
			}
		}
		out := &QueryResult{Surface: t.ID, Matches: []QueryMatch{}}
		m := matcher{o: o, name: strings.ToLower(collapse(o.Name)), text: strings.ToLower(o.Text)}
		for _, c := range caps {
			if c.page == nil || (frame != "" && !in[c.id]) {
				continue
			}
			fid := c.id
			if fid == t.TargetID {
				fid = ""
			}
			m.walk(c.page.Nodes, func(n *snapshot.Node, text string) {
				out.Count++
				if len(out.Matches) < o.Limit {
					qm := QueryMatch{Ref: n.Ref, Role: n.Role, Name: n.Name, States: n.States, FrameID: fid}
					if o.Text != "" {
						qm.Text = excerpt(text, 120)
					}
					out.Matches = append(out.Matches, qm)
				}
			})
		}
		out.Ambiguous = out.Count > 1
		return out, nil
	})
}

func parentOf(caps []*frameCapture, id string) string {
	for _, c := range caps {
		if c.id == id {
			return c.parent
		}
	}
	return ""
}

type matcher struct {
	o          QueryOptions
	name, text string
}

// walk calls found for each matching element, and returns the text under
// the nodes it was given (for the text rule: an element matches only when
// none of its element children holds the text whole).
func (m *matcher) walk(nodes []*snapshot.Node, found func(*snapshot.Node, string)) string {
	var all strings.Builder
	for _, n := range nodes {
		if n.IsText() {
			all.WriteString(n.Text)
			all.WriteByte(' ')
			continue
		}
		var inner bool
		var sub string
		if m.text != "" {
			// Children first: the innermost holder of the text wins.
			childHas := false
			sub = m.walkChildren(n, found, &childHas)
			inner = !childHas && strings.Contains(strings.ToLower(collapse(sub)), m.text)
		} else {
			sub = m.walkChildren(n, found, nil)
		}
		if m.matches(n) && (m.text == "" || inner) {
			found(n, collapse(sub))
		}
		all.WriteString(sub)
		all.WriteByte(' ')
	}
	return all.String()
}

// walkChildren walks n's children; with childHas it reports whether any
// element child's text holds the query text.
func (m *matcher) walkChildren(n *snapshot.Node, found func(*snapshot.Node, string), childHas *bool) string {
	var all strings.Builder
	// Text the node shows though it has no text children: a name from its
	// content (a button's label), a row's plain cells.
	if n.NameFromContent && len(n.Children) == 0 {
		all.WriteString(n.Name)
		all.WriteByte(' ')
	}
	for _, c := range n.Cells {
		all.WriteString(c)
		all.WriteByte(' ')
	}
	for _, c := range n.Children {
		sub := m.walk([]*snapshot.Node{c}, found)
		if childHas != nil && !c.IsText() && strings.Contains(strings.ToLower(collapse(sub)), m.text) {
			*childHas = true
		}
		all.WriteString(sub)
	}
	return all.String()
}

func (m *matcher) matches(n *snapshot.Node) bool {
	if m.o.Role != "" && n.Role != m.o.Role {
		return false
	}
	if m.o.Name != "" {
		name := strings.ToLower(collapse(n.Name))
		if m.o.Exact && name != m.name || !m.o.Exact && !strings.Contains(name, m.name) {
			return false
		}
	}
	return true
}

// collapse trims and collapses runs of white space to one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func excerpt(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
