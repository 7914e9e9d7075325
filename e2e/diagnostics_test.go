package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

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
	want := []*regexp.Regexp{regexp.MustCompile(`error: MK-CONSOLE-ERROR`), regexp.MustCompile(`warning: MK-CONSOLE-WARNING`),
		regexp.MustCompile(`exception: Uncaught Error: MK-UNCAUGHT`), regexp.MustCompile(`missing-data\.json: HTTP 404`),
		// The report's long-task line; that the fixture's long task is
		// counted is TestPageTimings' (package action): in a daemon's
		// browser Chromium was seen not to hand it over at all.
		regexp.MustCompile(`timing: first byte`), regexp.MustCompile(`long tasks: \d+ \(`)}
	var out string
	missing := func() string {
		for _, w := range want {
			if !w.MatchString(out) {
				return w.String()
			}
		}
		return ""
	}
	// The exception is thrown from a timer and the request answered
	// asynchronously: polled until both are in (bounded).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out = e.ok("diagnostics")
		if missing() == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the diagnostics lack %s:\n%s", missing(), out)
		}
	}
	m := startMCP(t, e, "--daemon")
	if text := m.ok("browser_diagnostics", map[string]any{}); !strings.Contains(text, "MK-UNCAUGHT") || !strings.Contains(text, "missing-data.json") {
		t.Fatalf("browser_diagnostics:\n%s", text)
	}
}
