package engine

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/internal/snapshot"
)

// benchAssign measures assignLocators alone on a tab's current capture
// (captured and bound once), the cost a snapshot will add:
//
//	go test -run '^$' -bench Locat -benchtime 20x ./internal/engine/
func benchAssign(b *testing.B, tab *Tab) {
	ctx := context.Background()
	tab.op.Lock()
	defer tab.op.Unlock()
	caps, err := tab.captureAll(ctx, DefaultFrameDepth)
	if err != nil {
		b.Fatal(err)
	}
	s := &Snapshot{}
	tab.bindRefs(caps, s)
	for b.Loop() {
		tab.assignLocators(ctx, caps)
	}
	n := 0
	for _, r := range s.Refs {
		if bd, ok := tab.refs.Lookup(r.Ref); ok && bd.Locator != "" {
			n++
		}
	}
	if n != len(s.Refs) {
		b.Fatalf("%d of %d refs got a locator", n, len(s.Refs))
	}
	b.ReportMetric(float64(len(s.Refs)), "refs")
}

// BenchmarkAssignLocatorsLarge: the large page (2,000 refs, ~44k nodes);
// every ref has a unique role and name.
func BenchmarkAssignLocatorsLarge(b *testing.B) {
	benchAssign(b, largeTab(b))
}

// BenchmarkAssignLocatorsRepeated: 2,000 buttons all named "Delete" and no
// ids: every ref needs a CSS path.
func BenchmarkAssignLocatorsRepeated(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	if _, err := tab.Navigate(ctx, testServer.URL+"/locators/repeated-large.html"); err != nil {
		b.Fatal(err)
	}
	benchAssign(b, tab)
}

// BenchmarkLocateRoleLarge: resolving a role locator on the large page
// (a walk of the whole document).
func BenchmarkLocateRoleLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	loc, err := snapshot.ParseLocator(`role=button[name="Edit 4996"]`)
	if err != nil {
		b.Fatal(err)
	}
	tab.op.Lock()
	defer tab.op.Unlock()
	for b.Loop() {
		ms, err := tab.locate(ctx, loc)
		if err != nil || len(ms) != 1 {
			b.Fatalf("%d matches, %v", len(ms), err)
		}
	}
}
