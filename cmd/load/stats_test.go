package main

import (
	"testing"
	"time"
)

// TestQuantile: nearest rank, bounded at both ends; none is zero.
func TestQuantile(t *testing.T) {
	var l latencies
	for i := 100; i >= 1; i-- {
		l = append(l, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 50 * time.Millisecond}, {0.99, 99 * time.Millisecond}, {1, 100 * time.Millisecond}, {0, time.Millisecond}} {
		if got := l.quantile(tc.q); got != tc.want {
			t.Errorf("q%.2f = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := (latencies{}).quantile(0.5); got != 0 {
		t.Errorf("empty: %v", got)
	}
	if got := (latencies{3 * time.Millisecond}).quantile(0.99); got != 3*time.Millisecond {
		t.Errorf("one: %v", got)
	}
}
