package action_test

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// BenchmarkAnnotatedScreenshot is what --annotate costs on the frames
// page (two frames, one of them cross-site): the snapshot of what the
// viewport shows, the screenshot, the boxes and the drawing. Compare with
// BenchmarkScreenshot, the plain viewport capture.
func BenchmarkAnnotatedScreenshot(b *testing.B) {
	pa, _ := enginetest.StartPair(b)
	tab := enginetest.OpenTab(b, pa.Page("frames/top.html"))
	enginetest.Snap(b, tab)
	b.ResetTimer()
	for b.Loop() {
		s, err := capture.Take(enginetest.Ctx(b), tab, capture.SnapshotOptions{Viewport: true})
		if err != nil {
			b.Fatal(err)
		}
		refs := make([]action.Labelled, len(s.Refs))
		for i, r := range s.Refs {
			refs[i] = action.Labelled{Ref: r.Ref, FrameID: r.FrameID, Role: r.Role, Name: r.Name}
		}
		shot, err := action.Screenshot(enginetest.Ctx(b), tab, action.ScreenshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := action.Annotate(enginetest.Ctx(b), tab, shot, refs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScreenshot is a plain viewport screenshot of the frames page.
func BenchmarkScreenshot(b *testing.B) {
	pa, _ := enginetest.StartPair(b)
	tab := enginetest.OpenTab(b, pa.Page("frames/top.html"))
	enginetest.Snap(b, tab)
	b.ResetTimer()
	for b.Loop() {
		if _, err := action.Screenshot(enginetest.Ctx(b), tab, action.ScreenshotOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPageTimings is the page's part of diagnostics (timing and long
// tasks) on the frames page; the rest is reading the event log.
func BenchmarkPageTimings(b *testing.B) {
	pa, _ := enginetest.StartPair(b)
	tab := enginetest.OpenTab(b, pa.Page("frames/top.html"))
	b.ResetTimer()
	for b.Loop() {
		if _, err := action.PageTimings(enginetest.Ctx(b), tab); err != nil {
			b.Fatal(err)
		}
	}
}
