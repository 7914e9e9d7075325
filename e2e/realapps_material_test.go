package e2e

// Material Web (@material/web, Lit components with nested shadow roots),
// an addition to the ten libraries of the brief: its controls sit two
// shadow roots deep and are labelled from outside.

// materialTasks: a profile form of Material Web components.
func materialTasks(a *realAgent) {
	a.task("typeInTextField", func(a *realAgent) {
		snap := a.open("material.html", "kit ready")
		a.logSize("material.html")
		a.typeText(a.find(snap, `textbox "Display name"`), "Ada Lovelace")
		a.expect("the name is typed", "window.__result.name", "Ada Lovelace")
	})
	a.task("checkCheckbox", func(a *realAgent) {
		snap := a.open("material.html", "kit ready")
		a.click(a.control(snap, "checkbox", "Send me the newsletter"))
		a.expect("the newsletter is on", "window.__result.news", true)
	})
	a.task("toggleSwitch", func(a *realAgent) {
		snap := a.open("material.html", "kit ready")
		a.click(a.control(snap, "switch", "Public profile"))
		a.expect("the profile is public", "window.__result.public", true)
	})
	a.task("chooseSelectOption", func(a *realAgent) {
		snap := a.open("material.html", "kit ready")
		a.click(a.find(snap, `combobox "Favourite color"`))
		blue := a.await(`option "Blue"`)
		a.logSize("material.html (color list open)")
		a.click(blue)
		a.expect("blue is chosen", "window.__result.color", "blue")
	})
	a.task("clickButton", func(a *realAgent) {
		snap := a.open("material.html", "kit ready")
		a.click(a.find(snap, `button "Save profile"`))
		a.expect("the profile is saved", "window.__result.saved", 1)
	})
	a.task("confirmDialog", func(a *realAgent) {
		snap := a.open("material.html", "kit ready")
		a.click(a.find(snap, `button "Delete account"`))
		a.click(a.await(`button "Delete"`))
		a.expect("the account is deleted", "window.__result.deleted", true)
	})
}
