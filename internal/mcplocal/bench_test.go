package mcplocal

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/mcpserver"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// BenchmarkMCPOverhead measures what the MCP layer adds to one executor
// call: the same read (the page's text, one protocol round trip) through
// the executor directly and through an MCP client and server connected in
// memory (JSON-RPC both ways, schema check, dispatch, result and _meta),
// alternating, on one browser. Reported: the medians and their difference.
func BenchmarkMCPOverhead(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := testpages.Start(b, "127.0.0.1")
	x := executor.New(executor.Config{Home: b.TempDir(), Chromium: os.Getenv("LOUPE_CHROMIUM")})
	defer x.Close(context.Background())
	backend := &Local{X: x}
	backend.Session, backend.Client = "bench", "mcp"
	reg := ops.New()
	openOp, _ := reg.Lookup("open")
	textOp, _ := reg.Lookup("text")
	s, err := mcpserver.New(mcpserver.Options{Backend: backend, Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	go s.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if _, err := backend.Do(ctx, mcpserver.Call{Op: openOp, OpRequest: apitype.OpRequest{Input: json.RawMessage(`{"url":"` + srv.Page("basic.html") + `"}`)}}); err != nil {
		b.Fatal(err)
	}
	var direct, viaMCP []time.Duration
	params := &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"what": "text"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := backend.Do(ctx, mcpserver.Call{Op: textOp}); err != nil {
			b.Fatal(err)
		}
		direct = append(direct, time.Since(t0))
		t0 = time.Now()
		r, err := cs.CallTool(ctx, params)
		if err != nil || r.IsError {
			b.Fatalf("%v %+v", err, r)
		}
		viaMCP = append(viaMCP, time.Since(t0))
	}
	b.StopTimer()
	md, mm := median(direct), median(viaMCP)
	b.ReportMetric(ms(md), "executor-ms")
	b.ReportMetric(ms(mm), "mcp-ms")
	b.ReportMetric(ms(mm-md), "overhead-ms")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
