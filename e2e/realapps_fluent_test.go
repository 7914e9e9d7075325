package e2e

// Fluent UI web components (@fluentui/web-components 3): custom elements
// that declare their role, name and state through ElementInternals, with
// no role or aria-* attribute on the element; labels are <label>s slotted
// into fluent-field, and the dropdown's options are projected through
// slots into its listbox.

// fluentTasks: an account settings page of Fluent UI components.
func fluentTasks(a *realAgent) {
	a.task("switchTab", func(a *realAgent) {
		snap := a.open("fluent.html", "kit ready")
		a.logSize("fluent.html")
		a.click(a.find(snap, `- tab "Billing`))
		a.expect("the billing tab is selected", "window.__result.tab", "billing")
	})
	a.task("checkCheckbox", func(a *realAgent) {
		snap := a.open("fluent.html", "kit ready")
		a.click(a.control(snap, "checkbox", "Email me about product updates"))
		a.expect("updates are on", "window.__result.updates", true)
	})
	a.task("toggleSwitch", func(a *realAgent) {
		snap := a.open("fluent.html", "kit ready")
		a.click(a.control(snap, "switch", "Compact layout"))
		a.expect("the layout is compact", "window.__result.compact", true)
	})
	a.task("chooseRadio", func(a *realAgent) {
		snap := a.open("fluent.html", "kit ready")
		a.click(a.control(snap, "radio", "Team"))
		a.expect("the team plan is chosen", "window.__result.plan", "team")
	})
	a.task("pickDropdownOption", func(a *realAgent) {
		snap := a.open("fluent.html", "kit ready")
		a.click(a.control(snap, "combobox", "Data region"))
		europe := a.await(`option "Europe"`)
		a.logSize("fluent.html (region list open)")
		a.click(europe)
		a.expect("the region is Europe", "window.__result.region", "eu")
	})
}
