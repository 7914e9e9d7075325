package network_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/network"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// BenchmarkPageLoad loads the frames page (a page of A, a same-site frame
// and a cross-site, out-of-process one: three documents, two sessions)
// again and again in three tabs, one load in each per iteration, so that
// the three feel the same load of a shared machine, and reports each
// one's median time to its load event:
//
//   - no-hook: a tab of a browser without this package's session hook
//     (loupe before routes);
//
//   - empty: a tab with the hook and no route (Fetch stays off: what every
//     tab pays for routes to exist);
//
//   - one-route: a tab with a route that matches nothing (Fetch on, every
//     request paused and sent on by loupe: what the empty table avoids).
//
//     go test -run '^$' -bench PageLoad -benchtime 60x ./internal/engine/network/
func BenchmarkPageLoad(b *testing.B) {
	a, _ := enginetest.StartPair(b)
	page := a.Page("frames/top.html")
	plain := enginetest.OwnBrowser(b)
	hooked := enginetest.OwnBrowser(b, network.Option())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	names := []string{"no-hook", "empty", "one-route"}
	tabs := make([]*engine.Surface, len(names))
	for i, br := range []*engine.Browser{plain, hooked, hooked} {
		tab, err := surface.NewTab(ctx, br)
		if err != nil {
			b.Fatal(err)
		}
		tabs[i] = tab
		if _, err := nav.Navigate(ctx, tab, page); err != nil { // warm: the renderers are up
			b.Fatal(err)
		}
	}
	r, err := network.NewRoute("**/never/*", network.Abort, 0, nil, nil, "")
	if err != nil {
		b.Fatal(err)
	}
	if err := network.Of(hooked).Set(ctx, tabs[2], r); err != nil {
		b.Fatal(err)
	}
	loads := make([][]time.Duration, len(names))
	n := 0
	for b.Loop() {
		n++
		for i, tab := range tabs {
			t0 := time.Now()
			if _, err := nav.Navigate(ctx, tab, page+"?"+strconv.Itoa(n)); err != nil {
				b.Fatal(err)
			}
			loads[i] = append(loads[i], time.Since(t0))
		}
	}
	for i, ls := range loads {
		slices.Sort(ls)
		b.ReportMetric(float64(ls[len(ls)/2].Microseconds())/1000, names[i]+"-median-ms")
	}
}
