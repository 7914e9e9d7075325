package e2e

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestDiagnostics: one report of the current tab lists the fixture's
// console error and warning, its uncaught exception, its failed request,
// its timing and its long task, from the CLI and MCP.
func TestDiagnostics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("diagnostics.html"))
	want := []string{"error: MK-CONSOLE-ERROR", "warning: MK-CONSOLE-WARNING", "exception: Uncaught Error: MK-UNCAUGHT",
		"missing-data.json: HTTP 404", "timing: first byte", "long tasks: 1 ("}
	var out string
	eventually(t, "the diagnostics of the fixture", func() bool {
		out = e.ok("diagnostics")
		for _, w := range want {
			if !strings.Contains(out, w) {
				return false
			}
		}
		return true
	})
	m := startMCP(t, e, "--daemon")
	if text := m.ok("browser_diagnostics", map[string]any{}); !strings.Contains(text, "MK-UNCAUGHT") || !strings.Contains(text, "missing-data.json") {
		t.Fatalf("browser_diagnostics:\n%s", text)
	}
}
