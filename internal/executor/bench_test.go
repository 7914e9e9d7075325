package executor

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
)

// BenchmarkLedgerPerWrite measures what the operation ledger adds to one
// write through the whole pipeline: the same no-op write (it needs no
// browser) on an executor without a ledger and on one with it, alternating.
// Reported: the medians and their difference, the cost of reserve + settle
// on disk (fsynced) per write.
func BenchmarkLedgerPerWrite(b *testing.B) {
	noop := ops.Describe[nothing, nothing]("poke", "poke", ops.Write, time.Second)
	noop.NoBrowser = true
	reg := ops.NewRegistry(noop)
	hs := map[string]handlers.Handler{"poke": handlers.Func(func(context.Context, *handlers.Deps, *nothing) (*nothing, error) {
		return &nothing{}, nil
	})}
	store, err := ledger.Open(context.Background(), filepath.Join(b.TempDir(), "ledger.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	bare := New(Config{Home: b.TempDir(), Chromium: "/nonexistent", Registry: reg, Handlers: hs})
	kept := New(Config{Home: b.TempDir(), Chromium: "/nonexistent", Registry: reg, Handlers: hs, Store: store})
	ctx := context.Background()
	var without, with []time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := bare.Do(ctx, Request{Op: "poke"}); err != nil {
			b.Fatal(err)
		}
		without = append(without, time.Since(t0))
		t0 = time.Now()
		if _, err := kept.Do(ctx, Request{Op: "poke"}); err != nil {
			b.Fatal(err)
		}
		with = append(with, time.Since(t0))
	}
	b.StopTimer()
	mw, ml := median(without), median(with)
	b.ReportMetric(float64(mw.Microseconds())/1000, "bare-ms")
	b.ReportMetric(float64(ml.Microseconds())/1000, "ledger-ms")
	b.ReportMetric(float64((ml-mw).Microseconds())/1000, "added-ms")
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
