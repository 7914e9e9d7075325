package main

import (
	"slices"
	"time"
)

// latencies collects one kind of operation's durations.
type latencies []time.Duration

// quantile is the q-quantile (0 ≤ q ≤ 1) by the nearest-rank method: the
// smallest sample at least a fraction q of the samples do not exceed.
// It sorts l.
func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	rank := int(q*float64(len(l)) + 0.999999999)
	rank = min(max(rank, 1), len(l))
	return l[rank-1]
}

// ms is d in milliseconds, for tables and plots.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
