package eventlog

import (
	"testing"
	"time"
)

func TestFloodMeter(t *testing.T) {
	var m FloodMeter
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	// A page that asks a question now and then is no flood.
	for i := range 100 {
		if m.Add(t0.Add(time.Duration(i) * 200 * time.Millisecond)) {
			t.Fatalf("dialog %d, 200 ms apart, counted as a flood", i)
		}
	}
	// Twenty within a second are.
	var f FloodMeter
	for i := range FloodDialogs {
		flood := f.Add(t0.Add(time.Duration(i) * 10 * time.Millisecond))
		if flood != (i == FloodDialogs-1) {
			t.Fatalf("dialog %d: flood = %v", i, flood)
		}
	}
	// Nineteen quick ones and a slow gap are not.
	var g FloodMeter
	for i := range FloodDialogs - 1 {
		g.Add(t0.Add(time.Duration(i) * time.Millisecond))
	}
	if g.Add(t0.Add(2 * time.Second)) {
		t.Fatal("a dialog after a gap counted as a flood")
	}
}
