package snapshot

// Interactive keeps only what an agent can act on: every control (Control)
// with its ref, and the nodes on the way to one, without theirs, so that
// each keeps its frame (iframe nodes are controls) and its place. Text is dropped, except that an unnamed
// node kept for its place keeps its first text, so that five "Delete"
// buttons in five list items can be told apart (the list item's "Row
// three" stays above its button).
// It returns a new tree and leaves the input alone.
func Interactive(nodes []*Node) []*Node {
	var out []*Node
	for _, n := range nodes {
		if k := interactiveNode(n); k != nil {
			out = append(out, k)
		}
	}
	return out
}

func interactiveNode(n *Node) *Node {
	if n.IsText() {
		return nil
	}
	var kids []*Node
	for _, c := range n.Children {
		if k := interactiveNode(c); k != nil {
			kids = append(kids, k)
		}
	}
	keep := n.Ref != "" && n.Control
	if !keep && len(kids) == 0 {
		return nil
	}
	cp := *n
	cp.Children = kids
	if keep && len(kids) == 0 && allText(n.Children) {
		// A control's own text (a calendar day, a "Next") says what it is.
		cp.Children = n.Children
	}
	cp.Cells = nil
	if !keep {
		// Kept for its place only: no ref to offer.
		cp.Ref = ""
	}
	if !keep && cp.Name == "" {
		if t := firstText(n.Children); t != "" {
			cp.Children = append([]*Node{{Role: "text", Text: t}}, kids...)
		}
	}
	if keep && n.NameFromContent && cp.Name == "" {
		// Its content named it and is gone now: keep the name.
		cp.NameFromContent = false
	}
	return &cp
}

func firstText(ns []*Node) string {
	for _, c := range ns {
		if c.IsText() && !Blank(c.Text) {
			return c.Text
		}
	}
	return ""
}

// LimitDepth cuts the tree below depth levels, counted in each frame from
// its own top: a frame's content starts again at level 0 under its iframe
// node. A node whose children were cut gets the note "more", so the cut is
// visible. It returns a new tree and leaves the input alone.
func LimitDepth(nodes []*Node, depth int) []*Node {
	if depth <= 0 {
		return nodes
	}
	return limit(nodes, 0, depth)
}

func limit(nodes []*Node, d, max int) []*Node {
	out := make([]*Node, 0, len(nodes))
	for _, n := range nodes {
		cp := *n
		switch {
		case len(n.Children) == 0 || allText(n.Children):
			// Text children print on the node's own line.
		case n.Frame:
			cp.Children = limit(n.Children, 0, max)
		case d+1 >= max:
			cp.Children = nil
			if cp.FrameNote == "" {
				cp.FrameNote = "more"
			}
		default:
			cp.Children = limit(n.Children, d+1, max)
		}
		out = append(out, &cp)
	}
	return out
}
