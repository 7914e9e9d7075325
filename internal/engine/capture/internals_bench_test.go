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
)

// BenchmarkSnapshotInternals measures what custom elements with
// ElementInternals cost a snapshot: the large page (5,000 rows) with 20
// switches added whose role, name and state are on their internals, and
// the small internals.html fixture (14 such elements). first-ms is the
// first snapshot after the switches came (each asked about, Chromium's
// accessibility tree built, the page walked again); unchanged-ms a
// snapshot of the page as it was (every tracked element asked about
// again); toggled-ms one after a switch was turned through its internals
// alone (untimed), which the snapshot must show. Compare with
// BenchmarkSnapshotLarge, the same page without custom elements.
func BenchmarkSnapshotInternals(b *testing.B) {
	for _, c := range []struct {
		name, page string
		add        int
	}{{"large+20", "large.html", 20}, {"fixture", "internals.html", 0}} {
		b.Run(c.name, func(b *testing.B) { benchInternals(b, c.page, c.add) })
	}
}

func benchInternals(b *testing.B, page string, add int) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tab, err := surface.NewTab(ctx, enginetest.Browser())
	if err != nil {
		b.Fatal(err)
	}
	defer surface.CloseTab(context.Background(), enginetest.Browser(), tab.ID)
	if _, err := nav.Navigate(ctx, tab, enginetest.Page(page)); err != nil {
		b.Fatal(err)
	}
	// Warm: the agent installed, every style resolved, before the
	// switches come.
	if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
		b.Fatal(err)
	}
	pageEval(ctx, b, tab, fmt.Sprintf(`(() => {
		customElements.define('y-switch', class extends HTMLElement {
			constructor() { super(); this.i = this.attachInternals(); this.i.role = 'switch'; this.i.ariaChecked = 'false'; }
			connectedCallback() { this.i.ariaLabel = this.getAttribute('label'); }
		});
		for (let k = 0; k < %d; k++) {
			const s = document.createElement('y-switch');
			s.setAttribute('label', 'Switch ' + k);
			s.textContent = 'S' + k;
			document.body.prepend(s);
		}
		return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
	})()`, add))
	t0 := time.Now()
	if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
		b.Fatal(err)
	}
	first := time.Since(t0)
	// The fixture's switches keep their internals as .internals, the
	// added ones as .i.
	field := "internals"
	if add > 0 {
		field = "i"
	}
	var unchanged, toggled []time.Duration
	step := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := capture.Take(ctx, tab, capture.SnapshotOptions{}); err != nil {
			b.Fatal(err)
		}
		unchanged = append(unchanged, time.Since(t0))
		b.StopTimer()
		step++
		on := step%2 == 1
		pageEval(ctx, b, tab, fmt.Sprintf(`(() => { for (const s of document.querySelectorAll('y-switch, x-switch')) s.%s.ariaChecked = '%t'; return 0; })()`, field, on))
		b.StartTimer()
		t0 = time.Now()
		s, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		toggled = append(toggled, time.Since(t0))
		if got := strings.Contains(s.Text, `switch "Switch 0" [checked]`) || strings.Contains(s.Text, `switch "Dark mode" [checked]`); got != on {
			b.Fatalf("step %d: the snapshot does not show the switches %v", step, on)
		}
	}
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
	b.ReportMetric(medianMS(unchanged), "unchanged-ms")
	b.ReportMetric(medianMS(toggled), "toggled-ms")
}

// pageEval runs a script in the page's own world, awaiting its promise.
func pageEval(ctx context.Context, b *testing.B, tab *engine.Surface, expr string) {
	b.Helper()
	if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true}, nil); err != nil {
		b.Fatal(err)
	}
}
