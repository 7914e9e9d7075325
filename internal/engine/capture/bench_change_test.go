package capture_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// BenchmarkSnapshotLargeChanged snapshots the large page after a page
// script changed the value cell of 1 or 10 rows and the page rendered the
// change (untimed; page-settle-ms is how long that took the page: its own
// reflow of a 5,000-row table, which any reader of the page waits for):
// what an agent pays between two actions on a page that changes a little.
func BenchmarkSnapshotLargeChanged(b *testing.B) {
	for _, rows := range []int{1, 10} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			tab := largeTab(b)
			ctx := context.Background()
			step := 0
			var settle []time.Duration
			defer func() { b.ReportMetric(medianMS(settle), "page-settle-ms") }()
			for b.Loop() {
				b.StopTimer()
				step++
				t0 := time.Now()
				changeRows(ctx, b, tab, rows, step)
				settle = append(settle, time.Since(t0))
				b.StartTimer()
				s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if !strings.Contains(s.Text, fmt.Sprintf("v%d-", step)) {
					b.Fatalf("the snapshot after step %d does not show the change", step)
				}
			}
		})
	}
}

// changeRows sets the value cell of n rows spread over the page, from the
// page's own world, and waits for the page's next two frames.
func changeRows(ctx context.Context, b *testing.B, tab *engine.Surface, n, step int) {
	expr := fmt.Sprintf(`(() => { const rows = document.querySelectorAll('tbody tr');
		for (let i = 0; i < %d; i++) rows[(%d * 7919 + i * 499) %% rows.length].children[2].textContent = 'v%d-' + i;
		return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); })()`, n, step, step)
	if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true}, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSnapshotFramesChanged snapshots a page of four cross-site frames
// (200 rows each) unchanged, and after one frame's page changed one row
// and rendered it: the snapshot re-walks only that frame's change.
func BenchmarkSnapshotFramesChanged(b *testing.B) {
	srvA := testpages.StartSites(b, 5)[0]
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tab, err := surface.NewTab(ctx, enginetest.Browser())
	if err != nil {
		b.Fatal(err)
	}
	defer surface.CloseTab(ctx, enginetest.Browser(), tab.ID)
	const rows = 200
	if _, err := nav.Navigate(ctx, tab, srvA.Page(fmt.Sprintf("frames/four.html?rows=%d", rows))); err != nil {
		b.Fatal(err)
	}
	var s *capture.Snapshot
	for range 100 { // bounded: frames attach and build their rows as they load
		if s, err = capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		if s.Frames == 5 && strings.Count(s.Text, fmt.Sprintf(`"Edit %d"`, rows)) == 4 {
			break
		}
		nav.Wait(withTimeout(ctx, 100*time.Millisecond), tab, nav.WaitOptions{Text: "never"})
	}
	if s.Frames != 5 {
		b.Fatalf("four frames did not load: %d frames", s.Frames)
	}
	frames := tab.ChildFrames(tab.Root())
	var same, changed []time.Duration
	step := 0
	for b.Loop() {
		start := time.Now()
		if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		same = append(same, time.Since(start))
		b.StopTimer()
		step++
		w, err := tab.World(ctx, frames[step%len(frames)])
		if err != nil {
			b.Fatal(err)
		}
		// The frame renders its change before the snapshot, as after an
		// action (untimed).
		if err := w.Eval(ctx, fmt.Sprintf(`document.querySelector('td').textContent = 'f%d';
			new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`, step), nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start = time.Now()
		s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		changed = append(changed, time.Since(start))
		if !strings.Contains(s.Text, fmt.Sprintf("f%d", step)) {
			b.Fatalf("the snapshot after step %d does not show the frame's change", step)
		}
	}
	b.ReportMetric(medianMS(same), "unchanged-ms")
	b.ReportMetric(medianMS(changed), "one-frame-changed-ms")
}

// medianMS is the median of ds in milliseconds, for the benchmarks'
// reported figures.
func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkSnapshotCacheMemory measures the JS heap of the large page's
// renderer (Runtime.getHeapUsage, after a garbage collection): after load,
// after a fresh walk (what the agent keeps without a cache: element ids),
// and after a kept walk (its memo and tree too).
func BenchmarkSnapshotCacheMemory(b *testing.B) {
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		tab, err := surface.NewTab(ctx, enginetest.Browser())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := nav.Navigate(ctx, tab, enginetest.Page("large.html")); err != nil {
			b.Fatal(err)
		}
		h0, h1, h2 := walkHeaps(b, ctx, tab)
		b.ReportMetric(h1-h0, "fresh-walk-MB")
		b.ReportMetric(h2-h1, "cache-MB")
		b.ReportMetric(h2-h0, "with-cache-MB")
		surface.CloseTab(context.Background(), enginetest.Browser(), tab.ID)
		cancel()
	}
}

// BenchmarkSnapshotLargeCold is the first snapshot of the large page in a
// new tab (the agent installed, every style resolved, after the page's
// first layout, which is timed apart), beside DOMSnapshot.captureSnapshot
// on another new tab of the same page, also its first call.
func BenchmarkSnapshotLargeCold(b *testing.B) {
	var snap, dom []time.Duration
	fresh := func(ctx context.Context) *engine.Surface {
		tab, err := surface.NewTab(ctx, enginetest.Browser())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := nav.Navigate(ctx, tab, enginetest.Page("large.html")); err != nil {
			b.Fatal(err)
		}
		if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": "document.body.getBoundingClientRect().height"}, nil); err != nil {
			b.Fatal(err)
		}
		return tab
	}
	for b.Loop() {
		b.StopTimer()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		a := fresh(ctx)
		b.StartTimer()
		t0 := time.Now()
		if _, err := capture.Take(ctx, a, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		snap = append(snap, time.Since(t0))
		b.StopTimer()
		surface.CloseTab(context.Background(), enginetest.Browser(), a.ID)
		d := fresh(ctx)
		t0 = time.Now()
		if err := d.Session().Call(ctx, "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}}, nil); err != nil {
			b.Fatal(err)
		}
		dom = append(dom, time.Since(t0))
		surface.CloseTab(context.Background(), enginetest.Browser(), d.ID)
		cancel()
		b.StartTimer()
	}
	b.ReportMetric(medianMS(snap), "cold-ms")
	b.ReportMetric(medianMS(dom), "domsnapshot-cold-ms")
	b.ReportMetric(medianMS(snap)/medianMS(dom), "ratio")
}

// BenchmarkSnapshotLargeAfterClick is the agent's loop on the large page:
// a trusted click on a row's button (its handler writes a status line;
// the pointer and the focus move), untimed, then the snapshot.
func BenchmarkSnapshotLargeAfterClick(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var buttons []string
	for _, r := range s.Refs {
		if r.Role == "button" && strings.HasPrefix(r.Name, "Edit ") {
			buttons = append(buttons, r.Ref)
		}
	}
	step := 0
	for b.Loop() {
		b.StopTimer()
		step++
		ref := buttons[(step*97)%len(buttons)]
		if _, err := action.Click(ctx, tab, ref, action.ClickOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(s.Text, "clicked-row-") {
			b.Fatal("the snapshot does not show the click's status line")
		}
	}
}
