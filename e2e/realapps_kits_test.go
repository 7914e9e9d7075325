package e2e

// Component kits of the real-app corpus: Shoelace (web components with
// shadow roots and slots), Element Plus (Vue 3), Swagger UI.

// shoelaceTasks: a settings page of Shoelace components (cdn build).
func shoelaceTasks(a *realAgent) {
	a.task("clickButton", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.logSize("shoelace.html")
		// The button's text is slotted into a <button> in its shadow root.
		a.click(a.find(snap, `button "Save draft"`))
		a.expect("the draft is saved", "window.__result.saved", 1)
	})
	a.task("toggleSwitch", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `switch "Email notifications"`))
		a.expect("notifications are on", "window.__result.notify", true)
	})
	a.task("chooseSelectOption", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `combobox "Size"`))
		large := a.await(`option "Large"`)
		a.logSize("shoelace.html (size list open)")
		a.click(large)
		a.expect("the size is large", "window.__result.size", "large")
	})
	a.task("typeInInput", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		// sl-input's <input> is in its shadow root, labelled by its label.
		a.typeText(a.find(snap, `textbox "Project name"`), "Apollo")
		a.expect("the name is typed", "window.__result.name", "Apollo")
	})
	a.task("chooseMenuItem", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `button "More actions"`))
		a.click(a.await(`menuitem "Duplicate"`))
		a.expect("duplicate was chosen", "window.__result.action", "duplicate")
	})
	a.task("confirmDialog", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `button "Delete project"`))
		confirm := a.await(`button "Confirm"`)
		a.logSize("shoelace.html (dialog open)")
		a.click(confirm)
		a.expect("the project is deleted", "window.__result.deleted", true)
	})
}

func elementPlusTasks(a *realAgent) {}

func swaggerTasks(a *realAgent) {}
