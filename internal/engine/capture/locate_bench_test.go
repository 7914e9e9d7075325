package capture_test

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/locator"
)

// benchAssign measures assignLocators alone on a tab's current capture
// (captured and bound once), the cost a snapshot will add:
//
//	go test -run '^$' -bench Locat -benchtime 20x ./internal/engine/capture/
func benchAssign(b *testing.B, tab *engine.Surface) {
	ctx := context.Background()
	release := enginetest.Hold(b, tab)
	defer release()
	caps, err := capture.CaptureAll(ctx, tab, capture.DefaultFrameDepth)
	if err != nil {
		b.Fatal(err)
	}
	s := &capture.Snapshot{}
	capture.BindRefs(tab, caps, s)
	for b.Loop() {
		capture.AssignLocators(ctx, tab, caps)
	}
	n := 0
	for _, r := range s.Refs {
		if bd, ok := tab.Refs().Lookup(r.Ref); ok && bd.Locator != "" {
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
	if _, err := nav.Navigate(ctx, tab, enginetest.Page("locators/repeated-large.html")); err != nil {
		b.Fatal(err)
	}
	benchAssign(b, tab)
}

// BenchmarkLocateRoleLarge: resolving a role locator on the large page
// (a walk of the whole document).
func BenchmarkLocateRoleLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	loc, err := locator.ParseLocator(`role=button[name="Edit 4996"]`)
	if err != nil {
		b.Fatal(err)
	}
	release := enginetest.Hold(b, tab)
	defer release()
	for b.Loop() {
		ms, err := capture.Locate(ctx, tab, loc)
		if err != nil || len(ms) != 1 {
			b.Fatalf("%d matches, %v", len(ms), err)
		}
	}
}
