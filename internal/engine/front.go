package engine

import "context"

// Which page of a window takes input. A page another covers in its window
// (the tab a page opened in front of its opener) gets trusted input slowly
// once idle: a click on the covered opener took 1.7–2 s against 0.05 s in
// front (Chromium 156). A person clicks only in the tab they see, so loupe
// brings a page to the front before sending it input (ToFront).
//
// The browser does not say which tab of a window is in front, so it is
// followed here: loupe's tabs each have a window; a page a page opens
// joins its opener's group (the pages down from one without an opener)
// in front; a page loupe activates is in front of its group; a page alone
// in its group is in front. When the front one closes, the next input to
// any page of its group brings that page forward.

// groupOf is the root of the page's opener chain among the live pages.
// Caller holds b.mu.
func (b *Browser) groupOf(targetID string) string {
	for range 64 { // a chain is short; bounded all the same
		t := b.byTarget[targetID]
		if t == nil {
			break
		}
		op := t.OpenerTarget()
		if op == "" || b.byTarget[op] == nil {
			break
		}
		targetID = op
	}
	return targetID
}

// ToFront brings the surface's page to the front of its window when
// another may cover it; best effort: a covered page takes input, slowly.
func (t *Surface) ToFront(ctx context.Context) {
	b := t.b
	b.mu.Lock()
	g := b.groupOf(t.TargetID)
	front, alone := b.front[g], true
	for id := range b.byTarget {
		if id != t.TargetID && b.groupOf(id) == g {
			alone = false
			break
		}
	}
	b.mu.Unlock()
	if front != t.TargetID && !alone {
		_ = b.Activate(ctx, t)
	}
}

// Activate brings the surface's page to the front of its window.
func (b *Browser) Activate(ctx context.Context, t *Surface) error {
	if err := b.conn.Browser().Call(ctx, "Target.activateTarget", map[string]string{"targetId": t.TargetID}, nil); err != nil {
		return err
	}
	b.mu.Lock()
	b.front[b.groupOf(t.TargetID)] = t.TargetID
	b.mu.Unlock()
	return nil
}
