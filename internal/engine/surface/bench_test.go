package surface_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// BenchmarkNewTab opens a tab (timed) and closes it (untimed): in the
// persist partition; in a temp partition of its own each time (its
// browser context made with it, and discarded when it closes); and in a
// temp partition that already has a tab open (temp-more).
//
//	go test -run '^$' -bench NewTab -benchtime 20x ./internal/engine/surface/
func BenchmarkNewTab(b *testing.B) {
	for _, c := range []struct{ name, partition string }{{"persist", ""}, {"temp", "temp:"}, {"temp-more", "temp:more"}} {
		b.Run(c.name, func(b *testing.B) {
			br := enginetest.Browser()
			if c.name == "temp-more" {
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				keep, err := surface.NewTabIn(ctx, br, c.partition)
				if err != nil {
					b.Fatal(err)
				}
				defer func() { _ = surface.CloseTab(ctx, br, keep.ID); cancel() }()
			}
			i := 0
			var opened []time.Duration
			for b.Loop() {
				i++
				p := c.partition
				if c.name == "temp" {
					p += fmt.Sprint("bench", i)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				t0 := time.Now()
				tab, err := surface.NewTabIn(ctx, br, p)
				if err != nil {
					b.Fatal(err)
				}
				opened = append(opened, time.Since(t0))
				b.StopTimer()
				if err := surface.CloseTab(ctx, br, tab.ID); err != nil {
					b.Fatal(err)
				}
				cancel()
				b.StartTimer()
			}
			b.ReportMetric(float64(median(opened).Microseconds())/1000, "open-median-ms")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
