package capture_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// record rewrites the snapshot package's golden inputs from real pages:
//
//	go test ./internal/engine/capture -run TestRecordAgentOutput -record
//
// Off by default, so an ordinary run (and CI) never rewrites anything.
var record = flag.Bool("record", false, "record the page agent's output for every fixture page into internal/snapshot/testdata")

// recordOrigin replaces the test server's address in recordings: the
// server listens on a random port, and a recording must not change when
// only the port does.
const recordOrigin = "http://loupe.test"

// recordPasses is how many times each page is captured, in one tab.
// compact.html is captured twice in the same document (compact.agent.json
// and compact.pass2.agent.json) for the spec's acceptance: a second capture
// renders the same compact text and every ref resolves to its original
// node.
var recordPasses = map[string]int{"compact": 2}

func TestRecordAgentOutput(t *testing.T) {
	t.Parallel()
	if !*record {
		t.Skip("recording is off; run with -record to rewrite internal/snapshot/testdata/*.agent.json")
	}
	pages, err := filepath.Glob(filepath.Join("..", "..", "testpages", "pages", "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no fixture pages found")
	}
	outDir := filepath.Join("..", "..", "snapshot", "testdata")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		file := filepath.Base(p)
		name := strings.TrimSuffix(file, ".html")
		t.Run(name, func(t *testing.T) {
			tab := openTab(t, file)
			passes := max(recordPasses[name], 1)
			for pass := 1; pass <= passes; pass++ {
				raw := recordPage(t, tab)
				out := name + ".agent.json"
				if pass > 1 {
					out = fmt.Sprintf("%s.pass%d.agent.json", name, pass)
				}
				if err := os.WriteFile(filepath.Join(outDir, out), raw, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("recorded %s", out)
			}
		})
	}
}

// recordPage returns the agent's snapshot of the tab's page, as the
// engine's capture gets it, pretty-printed and with the server origin
// fixed. A walk as a snapshot makes it comes first: it hands the agent
// what Chromium says of the page's custom elements (their
// ElementInternals), which the recorded walk then shows.
func recordPage(t *testing.T, tab *engine.Surface) []byte {
	t.Helper()
	ctx := ctxT(t)
	if _, _, err := capture.AgentWalk(ctx, tab, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	release := enginetest.Hold(t, tab)
	defer release()
	w, err := tab.World(ctx, tab.Root())
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := w.Call(ctx, "snapshot", &raw, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// The recording must decode as the engine decodes it.
	if _, err := snapshot.DecodePage(raw); err != nil {
		t.Fatalf("agent output does not decode: %v", err)
	}
	raw = strings.ReplaceAll(raw, enginetest.URL(), recordOrigin)
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(raw), "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}
