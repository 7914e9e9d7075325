package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestMCPInternalsControls acts through MCP, by ref, on custom elements
// that declare their role, name and states on ElementInternals only (no
// attribute on the element): the snapshot gives them their real lines and
// refs, a click and a check land, and each write's reported change and the
// next snapshot show the state the page set through the internals.
func TestMCPInternalsControls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	m.ok("browser_navigate", map[string]any{"url": srv.Page("internals.html"), "snapshot": false})
	snap := m.ok("browser_snapshot", nil)
	for _, want := range []string{
		`- radiogroup "Size" [ref=`, `  - radio "Medium" [checked] [ref=`, `- switch "Dark mode" [ref=`,
		`- listbox "Fruit" [ref=`, `  - option "Banana" [selected] [ref=`, `- button "Close dialog" [ref=`,
		`- checkbox "Send me the newsletter" [ref=`, `- button "More options" [collapsed] [ref=`,
	} {
		if !strings.Contains(snap, "\n"+want) {
			t.Fatalf("snapshot lacks %q:\n%s", want, snap)
		}
	}
	const top = "surface "
	sw := refAfter(t, snap, top, "switch", "Dark mode")
	cherry := refAfter(t, snap, top, "option", "Cherry")
	news := refAfter(t, snap, top, "checkbox", "Send me the newsletter")
	small := refAfter(t, snap, top, "radio", "Small")

	for _, c := range []struct {
		tool string
		args map[string]any
		diff string // a line the reported change adds
	}{
		{"browser_click", map[string]any{"ref": sw}, `switch "Dark mode" [checked] [ref=` + sw + `]`},
		{"browser_click", map[string]any{"ref": cherry}, `option "Cherry" [selected] [ref=` + cherry + `]`},
		{"browser_check", map[string]any{"ref": news}, `checkbox "Send me the newsletter" [checked] [ref=` + news + `]`},
		{"browser_check", map[string]any{"ref": small}, `radio "Small" [checked] [ref=` + small + `]`},
	} {
		out := m.ok(c.tool, c.args)
		added := regexp.MustCompile(`(?m)^\+ +- ` + regexp.QuoteMeta(c.diff) + `$`)
		if !added.MatchString(out) {
			t.Fatalf("%s %v should report %q as added:\n%s", c.tool, c.args, c.diff, out)
		}
	}
	after := m.ok("browser_snapshot", nil)
	for _, want := range []string{
		`- switch "Dark mode" [checked] [ref=` + sw + `]`,
		`  - option "Cherry" [selected] [ref=` + cherry + `]`, `  - option "Banana" [ref=`,
		`- checkbox "Send me the newsletter" [checked] [ref=` + news + `]`,
		`  - radio "Small" [checked] [ref=` + small + `]`, `  - radio "Medium" [ref=`,
	} {
		if !strings.Contains(after, "\n"+want) {
			t.Fatalf("snapshot after the writes lacks %q:\n%s", want, after)
		}
	}
	// Checking what is checked already, as the internals say now, sends
	// nothing.
	if out := m.ok("browser_check", map[string]any{"ref": news}); !strings.Contains(out, "already checked") {
		t.Fatalf("checking a checked box: %s", out)
	}
	if out := m.ok("browser_check", map[string]any{"ref": news, "checked": false}); !regexp.MustCompile(`(?m)^\+ +- checkbox "Send me the newsletter" \[ref=` + news + `\]$`).MatchString(out) {
		t.Fatalf("uncheck should report the box unchecked:\n%s", out)
	}
}
