package engine

import (
	"context"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/snapshot"
)

// The benchmarks measure on the large fixture (5,000 rows, ~44k DOM nodes),
// the page the targets are stated on, against the protocol floor
// on the same tab in the same run:
//
//	go test -run '^$' -bench . -benchtime 10x ./internal/engine/
func largeTab(b *testing.B) *Tab {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab, err := testBrowser.NewTab(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = testBrowser.CloseTab(ctx, tab.ID)
	})
	if _, err := tab.Navigate(ctx, testServer.URL+"/large.html"); err != nil {
		b.Fatal(err)
	}
	// Warm: the first snapshot installs the agent and resolves every style.
	if _, err := tab.Snapshot(ctx, SnapshotOptions{}); err != nil {
		b.Fatal(err)
	}
	return tab
}

func BenchmarkSnapshotLarge(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	var chars int
	for b.Loop() {
		s, err := tab.Snapshot(ctx, SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		chars = len(s.Text)
	}
	b.ReportMetric(float64(chars), "chars")
}

// BenchmarkSnapshotLargeParts splits a snapshot into its stages.
func BenchmarkSnapshotLargeParts(b *testing.B) {
	tab := largeTab(b)
	ctx := context.Background()
	w, err := tab.mainWorld(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var raw string
	b.Run("agent", func(b *testing.B) {
		for b.Loop() {
			if err := tab.agentCall(ctx, w, "snapshot", &raw, map[string]any{}); err != nil {
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
			snapshot.Render(snapshot.Header{Surface: "s1"}, snapshot.Compact(p.Nodes))
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
		if err := tab.sess.Call(ctx, "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}}, &res); err != nil {
			b.Fatal(err)
		}
	}
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
		if err := tab.sess.Call(ctx, "Accessibility.getFullAXTree", nil, &res); err != nil {
			b.Fatal(err)
		}
	}
}
