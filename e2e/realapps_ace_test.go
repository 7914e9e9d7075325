package e2e

// Ace (ace-builds): a code editor that takes its input through a textarea
// it keeps out of sight (transparent, a few pixels wide, moved to the
// caret), beside the text layer a person sees and clicks.

import (
	"encoding/json"
	"regexp"
	"strings"
)

// aceTasks: an Ace editor with a short JavaScript file (the same file as
// the CodeMirror page's).
func aceTasks(a *realAgent) {
	a.task("readCode", func(a *realAgent) {
		snap := a.open("ace.html", "editor ready")
		a.logSize("ace.html")
		// Every line of the file is in the snapshot as a line of text.
		var lines []string
		if err := json.Unmarshal([]byte(a.eval("window.__result.lines")), &lines); err != nil || len(lines) != 6 {
			a.t.Fatalf("the page's lines: %v %v", lines, err)
		}
		for _, l := range lines {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			if !regexp.MustCompile(`(?m)(: |")` + regexp.QuoteMeta(l) + `("|$)`).MatchString(snap) {
				a.t.Errorf("the code line %q is not a line of the snapshot", l)
			}
		}
		if a.t.Failed() {
			a.t.Logf("snapshot:\n%s", clip(snap))
		}
	})
	a.task("foldFunction", func(a *realAgent) {
		a.open("ace.html", "editor ready")
		// The fold marker beside line 1 in the gutter folds the function.
		// Ace draws the gutter's markers at its next frame once its mode
		// is in, which may come after "editor ready" on a loaded machine.
		a.click(a.awaitIn(`.`, `: 1$`, `- button\b`))
		a.expect("the function is folded", "window.__result.folded", 1)
	})
	a.task("typeAtLine", func(a *realAgent) {
		snap := a.open("ace.html", "editor ready")
		// Click the line that computes the total, go to its end, type.
		a.click(a.find(snap, `(: |")const total = add\(15, 27\);("|$)`))
		a.press("End")
		a.typeText("", " // 42")
		a.expect("the comment is at the end of that line", "window.__result.lines[4]", "const total = add(15, 27); // 42")
	})
	a.task("findAndReplace", func(a *realAgent) {
		snap := a.open("ace.html", "editor ready")
		// Open the search and replace box from the editor (Control+H),
		// replace every "total" with "sum".
		a.click(a.find(snap, `(: |")const total = add\(15, 27\);("|$)`))
		a.press("Control+h")
		a.typeText(a.await(`textbox "Search for"`), "total")
		snap = a.snapshot()
		a.typeText(a.find(snap, `textbox "Replace with"`), "sum")
		// Ace draws its buttons as plain elements: the "All" beside the
		// replace field replaces every match.
		a.click(a.findIn(snap, `- generic`, `textbox "Replace with"`, `: All$`))
		a.expect("every total is now sum", "window.__result.lines.slice(4)", []string{"const sum = add(15, 27);", "console.log(sum);"})
	})
	a.task("typeInEditorTextbox", func(a *realAgent) {
		snap := a.open("ace.html", "editor ready")
		// The editor is a textbox: type into it, as into any field (the
		// text goes at its end).
		editor := `textbox "Cursor at row \d+"`
		a.typeText(a.find(snap, editor), "\n// done")
		a.expect("the text is the editor's last line", "window.__result.lines.slice(5)", []string{"console.log(total);", "// done"})
		// With the find panel open inside the editor (its own fields
		// beside the editor's), the editor's textbox is Ace's hidden
		// textarea on a line of its own: a click on it, and typing into
		// it, still reach the editor.
		a.press("Control+f")
		a.await(`textbox "Search for"`)
		snap = a.snapshot()
		a.click(a.find(snap, editor))
		a.typeText(a.find(snap, editor), "!")
		a.expect("the text went to the editor", "window.__result.lines[6]", "// done!")
	})
}
