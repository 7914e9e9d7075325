package grid_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/grid"
	"github.com/loupe-dev/loupe/internal/gridtest"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// BenchmarkGridVsLocal: a snapshot (of the unchanged page, and walked
// afresh) and a click by ref through the
// executor, on the same page (frames/top.html: a same-origin frame and a
// cross-site OOPIF) in two sessions of one executor — one browser
// launched here, one taken from a Selenium Grid standalone on loopback
// (CDP through the Grid's se:cdp proxy) — alternating which goes first,
// in one run. Reported: the medians and the Grid's over the local's
// (target ≤ 1.2). Run with
//
//	go test -run '^$' -bench GridVsLocal -benchtime 30x ./internal/grid/
func BenchmarkGridVsLocal(b *testing.B) {
	g := gridtest.Start(b, gridtest.Options{QueueTimeout: time.Minute})
	a, _ := testpages.StartPair(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	x := executor.New(executor.Config{Home: b.TempDir(), Chromium: os.Getenv("LOUPE_CHROMIUM")})
	defer x.Close(context.Background())
	do := func(session, op string, in any) any {
		raw, _ := json.Marshal(in)
		res, err := x.Do(ctx, executor.Request{Op: op, OpRequest: apitype.OpRequest{Session: session, Input: raw}})
		if err != nil {
			b.Fatalf("%s %s: %v", session, op, err)
		}
		return res.Out
	}
	do("grid", "attach", ops.AttachIn{Grid: g.URL})
	refs := map[string]string{}
	for _, s := range []string{"local", "grid"} {
		do(s, "open", map[string]string{"url": a.Page("frames/top.html")})
		snap := do(s, "snapshot", ops.SnapshotIn{}).(*ops.SnapshotOut)
		for _, r := range snap.Refs {
			if r.Role == "button" && r.Name == "Go" && r.FrameID != "" && refs[s] == "" {
				refs[s] = r.Ref // in a frame: the click crosses into it
			}
		}
		if refs[s] == "" {
			b.Fatalf("%s: no Go button in a frame:\n%s", s, snap.Text())
		}
	}
	times := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range b.N {
		order := []string{"local", "grid"}
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, s := range order {
			t0 := time.Now()
			do(s, "snapshot", ops.SnapshotIn{})
			t1 := time.Now()
			do(s, "snapshot", ops.SnapshotIn{NoCache: true})
			t2 := time.Now()
			do(s, "click", ops.ClickIn{Target: refs[s]})
			times[s+"-snapshot"] = append(times[s+"-snapshot"], t1.Sub(t0))
			times[s+"-fresh"] = append(times[s+"-fresh"], t2.Sub(t1))
			times[s+"-click"] = append(times[s+"-click"], time.Since(t2))
		}
	}
	b.StopTimer()
	// snapshot: of the unchanged page (the walk reused); fresh: walked
	// afresh (--no-cache), as after the page changed.
	for _, op := range []string{"snapshot", "fresh", "click"} {
		l, r := median(times["local-"+op]), median(times["grid-"+op])
		b.ReportMetric(ms(l), "local-"+op+"-ms")
		b.ReportMetric(ms(r), "grid-"+op+"-ms")
		b.ReportMetric(float64(r)/float64(l), "grid/local-"+op)
	}
	b.Logf("%d iterations; Grid ready in %v", b.N, g.Startup.Round(time.Millisecond))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkGridRoundTrip is what the Grid's CDP proxy adds to one
// protocol round trip (Browser.getVersion): over the pipe of a Chromium
// launched here against over a Grid session's se:cdp websocket,
// alternating. A snapshot of an unchanged page is a few such round
// trips in a row, so this is most of the difference in
// BenchmarkGridVsLocal's snapshot.
func BenchmarkGridRoundTrip(b *testing.B) {
	g := gridtest.Start(b, gridtest.Options{QueueTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), false)
	if err != nil {
		b.Fatal(err)
	}
	local, err := chromium.Launch(ctx, chromium.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(b.TempDir(), "profile")})
	if err != nil {
		b.Fatal(err)
	}
	defer local.Stop(context.Background())
	c, err := grid.New(g.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	caps, _ := grid.Capabilities(chromium.NodeFlags(), "")
	s, err := c.NewSession(ctx, caps)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Delete(context.Background())
	ws, err := cdp.DialWebsocket(ctx, s.CDP)
	if err != nil {
		b.Fatal(err)
	}
	remote := cdp.NewConn(ws)
	defer remote.Close()
	conns := map[string]*cdp.Conn{"local": local.Conn, "grid": remote}
	times := map[string][]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for name, conn := range conns {
			t0 := time.Now()
			if err := conn.Browser().Call(ctx, "Browser.getVersion", nil, nil); err != nil {
				b.Fatal(err)
			}
			times[name] = append(times[name], time.Since(t0))
		}
	}
	b.StopTimer()
	l, r := median(times["local"]), median(times["grid"])
	b.ReportMetric(ms(l), "local-ms")
	b.ReportMetric(ms(r), "grid-ms")
	b.ReportMetric(ms(r-l), "added-ms")
}
