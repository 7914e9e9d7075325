package capture_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/snapshot"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// The benchmarks measure on the large fixture (5,000 rows, ~44k DOM nodes),
// the page the targets are stated on, against the protocol floor
// on the same tab in the same run:
//
//	go test -run '^$' -bench . -benchtime 10x ./internal/engine/capture/
func largeTab(b *testing.B) *engine.Surface {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab, err := surface.NewTab(ctx, enginetest.Browser())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = surface.CloseTab(ctx, enginetest.Browser(), tab.ID)
	})
	if _, err := nav.Navigate(ctx, tab, enginetest.Page("large.html")); err != nil {
		b.Fatal(err)
	}
	// Warm: the first snapshot installs the agent and resolves every style.
	if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
		b.Fatal(err)
	}
	return tab
}

func BenchmarkSnapshotLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	var chars int
	for b.Loop() {
		s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		chars = len(s.Text)
	}
	b.ReportMetric(float64(chars), "chars")
}

// BenchmarkSnapshotLargeScoped snapshots a small subtree of the large page
// (one row's button, by ref): the scope is applied in the page before
// anything is serialised, so it costs a fraction of the whole page.
func BenchmarkSnapshotLargeScoped(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
	if err != nil {
		b.Fatal(err)
	}
	scope := ""
	for _, r := range s.Refs {
		if r.Name == "Edit 4996" {
			scope = r.Ref
		}
	}
	var full, scoped []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		full = append(full, time.Since(start))
		start = time.Now()
		if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{Scope: scope}); err != nil {
			b.Fatal(err)
		}
		scoped = append(scoped, time.Since(start))
	}
	b.ReportMetric(medianMS(full), "full-ms")
	b.ReportMetric(medianMS(scoped), "scoped-ms")
	b.ReportMetric(medianMS(scoped)/medianMS(full), "ratio")
}

// BenchmarkSnapshotLargeParts splits a snapshot into its stages.
func BenchmarkSnapshotLargeParts(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	w, err := tab.World(ctx, tab.Root())
	if err != nil {
		b.Fatal(err)
	}
	var raw string
	b.Run("agent", func(b *testing.B) {
		for b.Loop() {
			if err := w.Call(ctx, "snapshot", &raw, map[string]any{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(raw)), "bytes")
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := snapshot.DecodePage(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compact+render", func(b *testing.B) {
		for b.Loop() {
			p, _ := snapshot.DecodePage(raw)
			b.StartTimer()
			snapshot.Render(snapshot.Header{Surface: "s1"}, snapshot.Compact(p.Nodes), snapshot.RenderOptions{})
		}
	})
}

// BenchmarkDOMSnapshotLarge is the floor the issue compares with:
// DOMSnapshot.captureSnapshot without computed styles, decoded.
func BenchmarkDOMSnapshotLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	for b.Loop() {
		var res struct {
			Documents []struct {
				Nodes struct {
					BackendNodeID []int64 `json:"backendNodeId"`
				} `json:"nodes"`
			} `json:"documents"`
			Strings []string `json:"strings"`
		}
		if err := tab.Session().Call(ctx, "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}}, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDOMGetDocumentLarge is the other protocol floor: the whole DOM
// tree (depth -1), decoded.
func BenchmarkDOMGetDocumentLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	for b.Loop() {
		var res struct {
			Root struct {
				NodeID int64 `json:"nodeId"`
			} `json:"root"`
		}
		if err := tab.Session().Call(ctx, "DOM.getDocument", map[string]any{"depth": -1}, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAgentRoundTrip is the least any snapshot costs: an empty
// evaluation in the agent's world of the page (the round trip of the call
// that returns a snapshot).
func BenchmarkAgentRoundTrip(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	w, err := tab.World(ctx, tab.Root())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := w.Eval(ctx, "0", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotHuge snapshots a page of about 108,000 elements (20,000
// rows): layout-ms is the page's first layout, first-ms the first snapshot
// after it (the agent's first walk, every style resolved), the loop the
// unchanged ones; beside them the floors on the same tab.
func BenchmarkSnapshotHuge(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tab, err := surface.NewTab(ctx, enginetest.Browser())
	if err != nil {
		b.Fatal(err)
	}
	defer surface.CloseTab(context.Background(), enginetest.Browser(), tab.ID)
	if _, err := nav.Navigate(ctx, tab, enginetest.Page("huge.html")); err != nil {
		b.Fatal(err)
	}
	// The page's first layout is part of the first snapshot's cost (a
	// headless page lays out when first asked): timed on its own first.
	t0 := time.Now()
	if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": "document.body.getBoundingClientRect().height"}, nil); err != nil {
		b.Fatal(err)
	}
	layout := time.Since(t0)
	t0 = time.Now()
	s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
	if err != nil {
		b.Fatal(err)
	}
	first := time.Since(t0)
	floor := func(method string, params any) time.Duration {
		t0 := time.Now()
		var res struct{}
		if err := tab.Session().Call(ctx, method, params, &res); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	dom := floor("DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}})
	doc := floor("DOM.getDocument", map[string]any{"depth": -1})
	b.ResetTimer()
	var warm []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		warm = append(warm, time.Since(t0))
	}
	// The first few after the first walk wait on the renderer's garbage
	// collection of it: the median is the unchanged page's figure.
	b.ReportMetric(medianMS(warm), "unchanged-median-ms")
	b.ReportMetric(float64(layout.Milliseconds()), "layout-ms")
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
	b.ReportMetric(float64(dom.Milliseconds()), "domsnapshot-ms")
	b.ReportMetric(float64(doc.Milliseconds()), "getdocument-ms")
	b.ReportMetric(float64(len(s.Text)), "chars")
}

// BenchmarkAXTreeLarge is Chromium's full accessibility tree, for scale.
func BenchmarkAXTreeLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	for b.Loop() {
		var res struct {
			Nodes []struct {
				NodeID string `json:"nodeId"`
			} `json:"nodes"`
		}
		if err := tab.Session().Call(ctx, "Accessibility.getFullAXTree", nil, &res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotFourFrames snapshots a page with four out-of-process
// iframes from four sites (so four renderer processes), with 20 rows each
// (a widget's worth) and 200 rows each, and
// compares it with the floor the issue sets:
// the slowest single frame's raw capture (the agent's walk in that frame,
// alone) plus the merge (decoding every frame, stitching, compacting and
// rendering). Frames are captured concurrently, so the ratio should stay
// near 1.
func BenchmarkSnapshotFourFrames(b *testing.B) {
	for _, rows := range []int{20, 200} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchFourFrames(b, rows) })
	}
}

func benchFourFrames(b *testing.B, rows int) {
	srvA := testpages.StartSites(b, 5)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tab, err := surface.NewTab(ctx, enginetest.Browser())
	if err != nil {
		b.Fatal(err)
	}
	defer surface.CloseTab(ctx, enginetest.Browser(), tab.ID)
	if _, err := nav.Navigate(ctx, tab, srvA.Page(fmt.Sprintf("frames/four.html?rows=%d", rows))); err != nil {
		b.Fatal(err)
	}
	var s *capture.Snapshot
	for i := 0; i < 100; i++ { // bounded: frames attach and build their rows as they load
		if s, err = capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		if s.Frames == 5 && strings.Count(s.Text, fmt.Sprintf(`"Edit %d"`, rows)) == 4 {
			break
		}
		nav.Wait(withTimeout(ctx, 100*time.Millisecond), tab, nav.WaitOptions{Text: "never"})
	}
	if s.Frames != 5 || strings.Count(s.Text, fmt.Sprintf(`"Edit %d"`, rows)) != 4 {
		b.Fatalf("four frames did not load: %d frames", s.Frames)
	}
	var full, slowest, sum, merging []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		full = append(full, time.Since(start))
	}
	b.StopTimer()
	// The floor, measured on the same tab after the loop.
	frames := tab.ChildFrames(tab.Root())
	raws := map[string]string{}
	for range len(full) {
		var worst, total time.Duration
		for _, id := range append(frames, tab.Root()) {
			w, err := tab.World(ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			var raw string
			start := time.Now()
			if err := w.Call(ctx, "snapshot", &raw, map[string]any{}); err != nil {
				b.Fatal(err)
			}
			worst = max(worst, time.Since(start))
			total += time.Since(start)
			raws[id] = raw
		}
		slowest = append(slowest, worst)
		sum = append(sum, total)
		start := time.Now()
		var caps []*capture.FrameCapture
		for _, id := range append([]string{tab.Root()}, frames...) {
			p, err := snapshot.DecodePage(raws[id])
			if err != nil {
				b.Fatal(err)
			}
			parent := ""
			if id != tab.Root() {
				parent = tab.Root()
			}
			caps = append(caps, capture.NewFrameCapture(id, parent, p))
		}
		nodes := capture.Merge(caps, capture.DefaultFrameDepth)
		snapshot.Render(snapshot.Header{Surface: tab.ID}, snapshot.Compact(nodes), snapshot.RenderOptions{})
		merging = append(merging, time.Since(start))
	}
	b.ReportMetric(medianMS(full), "full-ms")
	b.ReportMetric(medianMS(slowest), "slowest-frame-ms")
	b.ReportMetric(medianMS(merging), "merge-ms")
	b.ReportMetric(medianMS(sum)+medianMS(merging), "one-by-one-ms")
	b.ReportMetric(medianMS(full)/(medianMS(slowest)+medianMS(merging)), "ratio")
}
