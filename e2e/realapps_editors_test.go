package e2e

// Editors of the real-app corpus: Quill in a cross-site iframe, CodeMirror 6.

import (
	"encoding/json"
	"regexp"
	"strings"
)

// quillTasks: the Quill editor is on 127.0.0.2, framed by a 127.0.0.1 page.
func quillTasks(a *realAgent) {
	a.task("typeInParagraph", func(a *realAgent) {
		snap := a.open("quill.html", "editor connected")
		a.logSize("quill.html")
		// A person clicks the first paragraph, goes to its end and types.
		a.click(a.find(snap, `(: |")Agenda for Monday("|$)`))
		a.press("End")
		a.typeText("", " and Tuesday")
		a.expect("the first paragraph got the text", "window.__result.lines", []string{"Agenda for Monday and Tuesday", "The quick brown fox"})
	})
	a.task("boldWordViaToolbar", func(a *realAgent) {
		snap := a.open("quill.html", "editor connected")
		// Select the last word of the second paragraph with the keyboard,
		// then press the toolbar's Bold button.
		a.click(a.find(snap, `(: |")The quick brown fox("|$)`))
		a.press("End", "Control+Shift+ArrowLeft")
		a.click(a.find(a.snapshot(), `button "[Bb]old"`))
		a.expect("the word is bold", "window.__result.html", "<p>Agenda for Monday</p><p>The quick brown <strong>fox</strong></p>")
	})
	a.task("bulletList", func(a *realAgent) {
		snap := a.open("quill.html", "editor connected")
		// Put the caret in the second paragraph, press the toolbar's
		// bullet-list button.
		a.click(a.find(snap, `(: |")The quick brown fox("|$)`))
		a.click(a.find(a.snapshot(), `(?i)button "[^"]*bullet`))
		a.expect("the paragraph is a bullet", "window.__result.bullets", []string{"The quick brown fox"})
	})
	a.task("insertLink", func(a *realAgent) {
		snap := a.open("quill.html", "editor connected")
		// Select "fox", press the toolbar's link button, type the address
		// into the tooltip's field, Enter.
		a.click(a.find(snap, `(: |")The quick brown fox("|$)`))
		a.press("End", "Control+Shift+ArrowLeft")
		a.click(a.find(a.snapshot(), `(?i)button "link"`))
		// The field that appeared (and took focus) holds the address.
		a.do("browser_type", map[string]any{"ref": a.await(`textbox[^\n]*\[focused\]`), "text": "https://example.com/fox", "clear": true})
		a.press("Enter")
		a.expect("fox links to the address", "window.__result.links", []string{"fox -> https://example.com/fox"})
	})
	a.task("waitSeesFrameText", func(a *realAgent) {
		a.open("quill.html", "editor connected")
		// The editor's status line is in the cross-site frame: a wait for
		// its text should see it as the snapshot does.
		a.do("browser_wait", map[string]any{"text": "editor ready"})
	})
}

// codemirrorTasks: a CodeMirror 6 editor (ESM through an import map) with
// a short JavaScript file.
func codemirrorTasks(a *realAgent) {
	a.task("readCode", func(a *realAgent) {
		snap := a.open("codemirror.html", "editor ready")
		a.logSize("codemirror.html")
		// An agent reads the code from the snapshot: every line of the
		// file should be there as text, one line of code per line.
		var lines []string
		if err := json.Unmarshal([]byte(a.eval("window.__result.lines")), &lines); err != nil || len(lines) != 6 {
			a.t.Fatalf("the page's lines: %v %v", lines, err)
		}
		for _, l := range lines {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			if !regexp.MustCompile(`(?m)(: |")` + regexp.QuoteMeta(l) + `("|$)`).MatchString(strings.ReplaceAll(snap, "\r", "")) {
				a.t.Errorf("the code line %q is not a line of the snapshot", l)
			}
		}
		if a.t.Failed() {
			a.t.Logf("snapshot:\n%s", clip(snap))
		}
	})
	a.task("typeAtLine", func(a *realAgent) {
		snap := a.open("codemirror.html", "editor ready")
		// Click the line that computes the total, go to its end, type.
		a.click(a.find(snap, `(: |")const total = add\(15, 27\);("|$)`))
		a.press("End")
		a.typeText("", " // 42")
		a.expect("the comment is at the end of that line", "window.__result.lines[4]", "const total = add(15, 27); // 42")
	})
	a.task("findAndReplace", func(a *realAgent) {
		snap := a.open("codemirror.html", "editor ready")
		// Open the search panel from the editor (Control+F), replace
		// every "total" with "sum".
		a.click(a.find(snap, `(: |")const total = add\(15, 27\);("|$)`))
		a.press("Control+f")
		a.typeText(a.await(`textbox "Find"`), "total")
		snap = a.snapshot()
		a.typeText(a.find(snap, `textbox "Replace"`), "sum")
		a.click(a.find(snap, `(?i)button "replace all"`))
		a.expect("every total is now sum", "window.__result.lines.slice(4)", []string{"const sum = add(15, 27);", "console.log(sum);"})
	})
	a.task("scrollToFarLine", func(a *realAgent) {
		snap := a.open("codemirror.html?long", "editor ready: 400 lines")
		a.logSize("codemirror.html?long")
		// Line 350 is far below the lines drawn: turn the wheel over the
		// editor until it shows, click it, type at its end.
		editor := a.find(snap, `- textbox\b`)
		want := `(: |")function target\(\) \{ return 350; \}("|$)`
		for i := 0; !regexp.MustCompile(`(?m)` + want).MatchString(snap); i++ {
			if i == 40 {
				a.t.Fatalf("line 350 never showed after %d wheel turns; snapshot:\n%s", i, clip(snap))
			}
			a.do("browser_scroll", map[string]any{"ref": editor, "dy": 250})
			snap = a.snapshot()
		}
		a.click(a.find(snap, want))
		a.press("End")
		a.typeText("", " // found")
		a.expect("line 350 got the comment", "window.__result.lines[349]", "function target() { return 350; } // found")
	})
	a.task("foldFunction", func(a *realAgent) {
		a.open("codemirror.html", "editor ready")
		// The fold marker (⌄) beside line 1 in the gutter folds the
		// function's body. CodeMirror draws the markers once it has parsed
		// the code, in the page's idle time: on a loaded machine after
		// "editor ready" (await takes snapshots until one shows it).
		a.click(a.await(`"Fold line"|: ⌄$`))
		a.expect("the function is folded", "window.__result.folded", 1)
	})
}
