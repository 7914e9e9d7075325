package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestPlotGolden: a chart of two series is drawn as testdata/plot.svg
// says (go test ./cmd/load -update rewrites it), and page text in labels
// is escaped.
func TestPlotGolden(t *testing.T) {
	p := plot{Title: "Click latency <p99>", XLabel: "concurrent clients", YLabel: "ms", Series: []series{
		{Name: "local", Points: []point{{1, 12}, {2, 15}, {4, 31}}},
		{Name: "grid", Points: []point{{1, 14}, {2, 18}, {4, 37}}},
	}}
	var b bytes.Buffer
	if err := p.writeSVG(&b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "plot.svg")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("the plot differs from %s:\n%s", golden, b.String())
	}
	if bytes.Contains(b.Bytes(), []byte("<p99>")) {
		t.Fatal("a label was not escaped")
	}
}

func TestRoundUp(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.3: 0.5, 1: 1, 1.2: 2, 2.2: 2.5, 3: 5, 7: 10, 31: 50, 120: 200} {
		if got := roundUp(v); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("roundUp(%v) = %v, want %v", v, got, want)
		}
	}
}
