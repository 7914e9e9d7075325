package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestMCPTwins drives, through MCP, pages whose widgets keep a control a
// person never sees beside the one they draw (twins-*.html): an option
// list mirrored for screen readers, editors whose input element is
// invisible, native toggles clipped under drawn ones; and controls inside
// presentational items (inner.html) and elements with no box of their own
// (contents.html). The agent does what
// a model does: it takes the first line with the role and name it wants
// and acts on that line's ref; every task must succeed, and each write's
// report shows the change on that same line.
func TestMCPTwins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	// (browser_eval checks what the page did; the agent only reads and acts.)
	m := startMCP(t, e, "--allow-eval")
	open := func(page string) string {
		t.Helper()
		m.ok("browser_navigate", map[string]any{"url": srv.Page(page), "snapshot": false})
		return m.ok("browser_snapshot", nil)
	}
	// first is the ref of the first line with this role and name.
	first := func(snap, role, name string) string {
		t.Helper()
		return refAfter(t, snap, "surface ", role, name)
	}
	value := func(expr string) string {
		t.Helper()
		r := m.call("browser_eval", map[string]any{"expression": expr})
		if r.isErr {
			t.Fatalf("eval %s: %s", expr, r.text)
		}
		b, _ := json.Marshal(r.res.StructuredContent)
		var out struct {
			Value string `json:"value"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("eval %s: %s", expr, b)
		}
		return out.Value
	}
	want := func(what, expr, v string) {
		t.Helper()
		if got := value(expr); got != v {
			t.Fatalf("%s: %s is %q, want %q", what, expr, got, v)
		}
	}
	// reports checks that a write's reply shows the line of ref as added,
	// starting with line (other states, such as [focused], may follow).
	reports := func(out, line, ref string) {
		t.Helper()
		if !regexp.MustCompile(`(?m)^\+ +- ` + regexp.QuoteMeta(line) + `(?: \[[a-z=]+\])* \[ref=` + ref + `\]$`).MatchString(out) {
			t.Fatalf("the reply should report %q (%s) as added:\n%s", line, ref, out)
		}
	}

	// An option list with a zero-size copy for screen readers, and one
	// with a transparent copy beside it.
	snap := open("twins-list.html")
	banana := first(snap, "option", "Banana")
	reports(m.ok("browser_click", map[string]any{"ref": banana}), `option "Banana" [selected]`, banana)
	want("pick Banana", "document.getElementById('fruit-out').textContent", "banana")
	m.ok("browser_click", map[string]any{"ref": first(snap, "option", "Blue")})
	want("pick Blue", "document.getElementById('color-out').textContent", "blue")

	// A code editor whose keys go to a 1-px transparent textarea, and an
	// EditContext editor whose focusable element has no size.
	snap = open("twins-editor.html")
	script := first(snap, "textbox", "Script")
	m.ok("browser_click", map[string]any{"ref": script})
	want("click the editor", "document.getElementById('code-status').textContent", "focused")
	m.ok("browser_fill", map[string]any{"ref": script, "text": "let y = 2;"})
	m.ok("browser_type", map[string]any{"ref": script, "text": " y++;"})
	want("fill and type into the editor", "document.getElementById('code-input').value", "let y = 2; y++;")
	if s := m.ok("browser_snapshot", nil); !strings.Contains(s, ": let y = 2; y++;") {
		t.Fatalf("the editor does not show what was typed:\n%s", s)
	}
	m.ok("browser_type", map[string]any{"ref": first(snap, "textbox", "Notes"), "text": "remember the milk"})
	want("type into the EditContext editor", "notesText()", "remember the milk")

	// Native toggles clipped to one pixel under drawn ones.
	snap = open("twins-toggle.html")
	remember := first(snap, "checkbox", "Remember me")
	reports(m.ok("browser_click", map[string]any{"ref": remember}), `checkbox "Remember me" [checked]`, remember)
	pro := first(snap, "radio", "Pro")
	reports(m.ok("browser_check", map[string]any{"ref": pro}), `radio "Pro" [checked]`, pro)
	dark := first(snap, "switch", "Dark mode")
	reports(m.ok("browser_check", map[string]any{"ref": dark}), `switch "Dark mode" [checked]`, dark)
	want("the form", "[...new FormData(document.getElementById('f'))].map(([k, v]) => k + '=' + v).join('&') + ' dark=' + document.getElementById('dark').checked",
		"remember=on&plan=pro dark=true")
	// What nothing visible stands for is refused alike by every verb.
	skip := first(snap, "link", "Skip to content")
	for _, tool := range []string{"browser_click", "browser_hover", "browser_focus"} {
		if code, notExecuted := errorOf(t, m.call(tool, map[string]any{"ref": skip})); code != "NOT_ACTIONABLE" || !notExecuted {
			t.Errorf("%s on the off-page link: %s (not executed %v)", tool, code, notExecuted)
		}
	}

	// Working controls inside items whose children are presentational (a
	// remove button in an option, a close button in a tab, a link in a
	// tree item named by its content): each is a line of its own, and
	// the item's name leaves it out.
	snap = open("inner.html")
	status := "document.getElementById('status').textContent"
	first(snap, "option", "Alpha") // the option's name is not "Alpha Remove Alpha"
	m.ok("browser_click", map[string]any{"ref": first(snap, "button", "Remove Alpha")})
	want("remove Alpha", status, "removed Alpha")
	m.ok("browser_click", map[string]any{"ref": first(snap, "button", "Remove Beta")})
	want("remove Beta", status, "removed Beta")
	first(snap, "tab", "Home")
	m.ok("browser_click", map[string]any{"ref": first(snap, "button", "Close")})
	want("close the Home tab", status, "closed Home")
	first(snap, "treeitem", "Folder")
	m.ok("browser_click", map[string]any{"ref": first(snap, "link", "rename")})
	want("rename the folder", status, "rename Folder")
	m.ok("browser_click", map[string]any{"ref": first(snap, "option", "Alpha")})
	want("pick Alpha itself", status, "picked Alpha")

	// Elements with a role and no box of their own (a display: contents
	// button, an option whose text is projected through a slot): their
	// refs are clicked where what renders them is.
	snap = open("contents.html")
	m.ok("browser_click", map[string]any{"ref": first(snap, "button", "Wrapped go")})
	want("the display: contents button", status, "clicked-contents")
	m.ok("browser_click", map[string]any{"ref": first(snap, "option", "Slotted pear")})
	want("the slotted option", status, "clicked-slotted")
}
