package e2e

// Editors of the real-app corpus: Quill in a cross-site iframe, CodeMirror 6.

// quillTasks: the Quill editor is on 127.0.0.2, framed by a 127.0.0.1 page.
func quillTasks(a *realAgent) {
	a.task("typeInParagraph", func(a *realAgent) {
		snap := a.open("quill.html", "editor ready")
		a.logSize("quill.html")
		// A person clicks the first paragraph, goes to its end and types.
		a.click(a.find(snap, `(: |")Agenda for Monday("|$)`))
		a.press("End")
		a.typeText("", " and Tuesday")
		a.expect("the first paragraph got the text", "window.__result.lines", []string{"Agenda for Monday and Tuesday", "The quick brown fox"})
	})
	a.task("boldWordViaToolbar", func(a *realAgent) {
		snap := a.open("quill.html", "editor ready")
		// Select the last word of the second paragraph with the keyboard,
		// then press the toolbar's Bold button.
		a.click(a.find(snap, `(: |")The quick brown fox("|$)`))
		a.press("End", "Control+Shift+ArrowLeft")
		a.click(a.find(a.snapshot(), `button "[Bb]old"`))
		a.expect("the word is bold", "window.__result.html", "<p>Agenda for Monday</p><p>The quick brown <strong>fox</strong></p>")
	})
	a.task("waitSeesFrameText", func(a *realAgent) {
		a.open("quill.html", "editor ready")
		// The editor's status line is in the cross-site frame: a wait for
		// its text should see it as the snapshot does.
		a.do("browser_wait", map[string]any{"text": "editor ready"})
	})
}

func codemirrorTasks(a *realAgent) {}
