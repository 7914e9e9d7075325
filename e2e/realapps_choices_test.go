package e2e

// Choices.js: each <select> is kept in the page, transparent and
// stretched over the combobox Choices draws in its place (the same label,
// so the same role and name); the chosen items of a multiple select are
// options of a listbox, each with a "Remove item" button inside it.

// choicesTasks: an issue form with a single select (an assignee, searched
// as you type) and a multiple select of labels (Design and Urgent chosen).
func choicesTasks(a *realAgent) {
	a.task("pickAssignee", func(a *realAgent) {
		snap := a.open("choices.html", "form ready")
		a.logSize("choices.html")
		a.click(a.find(snap, `combobox "Assignee"`))
		grace := a.await(`option "Grace Hopper"`)
		a.logSize("choices.html (assignee list open)")
		a.click(grace)
		a.expect("Grace Hopper is assigned", "window.__result.assignee", "grace")
	})
	a.task("searchAssignee", func(a *realAgent) {
		snap := a.open("choices.html", "form ready")
		// Open the list, type part of the name into its search field,
		// click the one person left.
		a.click(a.find(snap, `combobox "Assignee"`))
		a.typeText("", "dijk")
		a.click(a.await(`option "Edsger Dijkstra"`))
		a.expect("Edsger Dijkstra is assigned", "window.__result.assignee", "edsger")
	})
	a.task("removeLabel", func(a *realAgent) {
		snap := a.open("choices.html", "form ready")
		// The chosen label Design is an option with its own remove button.
		a.click(a.find(snap, `button "Remove item: Design"`))
		a.expect("only Urgent is left", "window.__result.labels", []string{"urgent"})
	})
	a.task("addLabel", func(a *realAgent) {
		snap := a.open("choices.html", "form ready")
		// The labels are the listbox named Labels (the native select,
		// transparent over the combobox Choices draws): click it to open
		// the list, pick a label that is not chosen yet.
		a.click(a.find(snap, `listbox "Labels"`))
		a.click(a.await(`option "Bug"`))
		a.expect("Bug is added", "window.__result.labels", []string{"bug", "design", "urgent"})
	})
}
