package engine

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/snapshot"
)

// SnapshotOptions selects what a snapshot shows.
type SnapshotOptions struct {
	NoCompact bool // show the raw tree, without the compact transform
}

// RefInfo describes one ref of a snapshot.
type RefInfo struct {
	Ref     string `json:"ref"`
	FrameID string `json:"frameId,omitempty"`
	Role    string `json:"role"`
	Name    string `json:"name"`
}

// Snapshot is a rendered snapshot of one surface.
type Snapshot struct {
	Surface string    `json:"surface"`
	URL     string    `json:"url"`
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	Refs    []RefInfo `json:"refs"`
	Nodes   int       `json:"nodes"`
}

// Snapshot captures the tab's page. Refs of nodes seen before in the same
// document are kept; new nodes get new refs. Capturing has no effect on the
// page: nothing is focused, scrolled, activated or reloaded.
func (t *Tab) Snapshot(ctx context.Context, o SnapshotOptions) (*Snapshot, error) {
	t.op.Lock()
	defer t.op.Unlock()
	var (
		page *snapshot.Page
		w    *world
		err  error
	)
	// A document that goes away mid-capture (a navigation racing the
	// snapshot) is captured again in its successor, once.
	for attempt := 0; attempt < 2; attempt++ {
		page, w, err = t.capture(ctx, t.mainFrame())
		if !errors.Is(err, ErrDocumentGone) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	doc := snapshot.Doc{Frame: t.mainFrame(), World: w.ctxID}
	var refs []RefInfo
	snapshot.Walk(page.Nodes, func(n *snapshot.Node, _ int) bool {
		if n.Elem != 0 {
			n.Ref = t.refs.Bind(doc, n.Elem, n.Role, n.Name)
			refs = append(refs, RefInfo{Ref: n.Ref, Role: n.Role, Name: n.Name})
		}
		return true
	})
	nodes := page.Nodes
	if !o.NoCompact {
		nodes = snapshot.Compact(nodes)
	}
	text := snapshot.Render(snapshot.Header{Surface: t.ID, Title: page.Title, URL: page.URL}, nodes)
	return &Snapshot{Surface: t.ID, URL: page.URL, Title: page.Title, Text: text, Refs: refs, Nodes: page.Count}, nil
}

func (t *Tab) capture(ctx context.Context, frameID string) (*snapshot.Page, *world, error) {
	w, err := t.world(ctx, frameID)
	if err != nil {
		return nil, nil, err
	}
	var raw string
	if err := t.agentCall(ctx, w, "snapshot", &raw, map[string]any{}); err != nil {
		return nil, nil, err
	}
	p, err := snapshot.DecodePage(raw)
	if err != nil {
		return nil, nil, err
	}
	return p, w, nil
}
