package e2e

// Component kits of the real-app corpus: Shoelace (web components with
// shadow roots and slots), Element Plus (Vue 3), Swagger UI.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

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
	a.task("closeDialogWithX", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `button "Delete project"`))
		// The dialog's close button is an sl-icon-button in its header.
		a.click(a.await(`button "Close"`))
		a.expect("the dialog was closed by its close button", "window.__result.dialogClosedBy", "close-button")
	})
	a.task("escapeClosesDialog", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `button "Delete project"`))
		a.await(`button "Confirm"`)
		a.press("Escape")
		a.expect("the dialog was closed from the keyboard", "window.__result.dialogClosedBy", "keyboard")
	})
	a.task("switchTab", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `tab "Billing"`))
		a.expect("the billing tab is shown", "window.__result.tab", "billing")
		a.do("browser_wait", map[string]any{"text": "the project is on the free plan"})
	})
	a.task("checkCheckbox", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `checkbox "Accept the license"`))
		a.expect("the license is accepted", "window.__result.terms", true)
	})
	a.task("chooseRadio", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		a.click(a.find(snap, `radio "Team"`))
		a.expect("the team plan is chosen", "window.__result.plan", "team")
	})
	a.task("expandDetails", func(a *realAgent) {
		snap := a.open("shoelace.html", "kit ready")
		// sl-details' summary is a header in its shadow root.
		a.click(a.find(snap, `Advanced options`))
		a.expect("the advanced options are shown", "window.__result.advanced", true)
		a.do("browser_wait", map[string]any{"text": "Danger zone"})
	})
}

// elementPlusTasks: a Vue 3 app of Element Plus components (full UMD
// build, templates compiled in the page).
func elementPlusTasks(a *realAgent) {
	a.task("toggleSwitch", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.logSize("element-plus.html")
		// The switch beside the text "Dark mode".
		a.click(a.control(snap, "switch", "Dark mode"))
		a.expect("dark mode is on", "window.__result.dark", true)
	})
	a.task("pickFromSelect", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.find(snap, `combobox "Office city"`))
		oslo := a.await(`option "Oslo"`)
		a.logSize("element-plus.html (city list open)")
		a.click(oslo)
		a.expect("Oslo is chosen", "window.__result.city", "oslo")
	})
	a.task("confirmMessageBox", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.find(snap, `button "Remove member"`))
		a.click(a.await(`button "Remove"`))
		a.expect("the member is removed", "window.__result.removed", true)
	})
	a.task("inviteViaDialog", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.find(snap, `button "Invite"`))
		a.typeText(a.await(`textbox "Email address"`), "ada@example.com")
		a.click(a.find(a.snapshot(), `button "Send invite"`))
		a.expect("the invite is sent", "window.__result.invited", "ada@example.com")
	})
	a.task("checkCheckbox", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		// The native checkbox is visually hidden under el-checkbox's box.
		a.click(a.find(snap, `checkbox "I agree to the terms"`))
		a.expect("the terms are agreed", "window.__result.agree", true)
	})
	a.task("clickLinkWithoutHref", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		// el-link without href is an <a> with no href, used as a button.
		a.click(a.find(snap, `Show billing details`))
		a.expect("the details are shown", "window.__result.details", true)
	})
	a.task("pickDate", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.find(snap, `combobox "Due date"`))
		day := a.await(`gridcell "18"`)
		a.logSize("element-plus.html (date picker open)")
		a.click(day)
		a.expect("the due date is 18 March", "window.__result.due", "2026-03-18")
	})
	a.task("goToPage3", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.find(snap, `"page 3"|(: |")3$`))
		a.expect("page 3 is shown", "window.__result.page", 3)
	})
	a.task("cascaderPath", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		// Region: Europe, then Norway, then Bergen, each in its own column.
		a.click(a.find(snap, `(combobox|textbox) "Region"`))
		a.click(a.await(`Europe`))
		a.click(a.await(`Norway`))
		a.click(a.await(`Bergen`))
		a.expect("the region is Europe / Norway / Bergen", "window.__result.region", []string{"europe", "norway", "bergen"})
	})
	a.task("hoverMenuItem", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		// The Actions menu opens while the pointer is over its button.
		a.do("browser_hover", map[string]any{"ref": a.find(snap, `button "Actions"`)})
		a.click(a.await(`menuitem "Archive team"|Archive team`))
		a.expect("the team is archived", "window.__result.command", "archive")
	})
	a.task("attachFile", func(a *realAgent) {
		if err := os.MkdirAll(a.files, 0o755); err != nil {
			a.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(a.files, "minutes.txt"), []byte("minutes of the meeting\n"), 0o644); err != nil {
			a.t.Fatal(err)
		}
		snap := a.open("element-plus.html", "kit ready")
		// The button opens a file chooser; the file input behind it is
		// hidden. The agent gives the file to what it sees.
		a.do("browser_upload", map[string]any{"ref": a.find(snap, `button "Attach a file"`), "files": []string{"minutes.txt"}})
		a.expect("the file is attached", "window.__result.files", []string{"minutes.txt:23"})
	})
	a.task("increaseNumber", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.findIn(snap, `.`, `spinbutton "Seats"`, `(?i)button "increase`))
		a.expect("one more seat", "window.__result.seats", 4)
	})
	a.task("sortTableByAge", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		a.click(a.find(snap, `columnheader "Age`))
		a.expect("the table is sorted by age", "window.__result.sort", "age:ascending")
	})
	a.task("checkTreeLeaf", func(a *realAgent) {
		snap := a.open("element-plus.html", "kit ready")
		// Open the Documents folder, tick the taxes file.
		a.click(a.find(snap, `treeitem "Documents"`))
		a.await(`Taxes 2025\.xlsx`)
		a.click(a.findIn(a.snapshot(), `treeitem`, `Taxes 2025\.xlsx`, `checkbox`))
		a.expect("only the taxes file is ticked", "window.__result.checked", []string{"tax"})
	})
}

// swaggerTasks: Swagger UI on a small OpenAPI document whose API (GET
// /pets/{petId}) the test server answers.
func swaggerTasks(a *realAgent) {
	a.task("expandOperation", func(a *realAgent) {
		snap := a.open("swagger.html", "explorer ready")
		a.logSize("swagger.html")
		a.click(a.find(snap, `button "GET /pets/\{petId\}`))
		a.await(`button "Try it out"`)
		a.logSize("swagger.html (operation open)")
		a.expect("the operation is open", "[...document.querySelectorAll('.opblock.is-open')].length", 1)
	})
	a.task("tryItOutExecute", func(a *realAgent) {
		snap := a.open("swagger.html", "explorer ready")
		a.click(a.find(snap, `button "GET /pets/\{petId\}`))
		a.click(a.await(`button "Try it out"`))
		a.typeText(a.await(`textbox "petId"(?: \[required\])?(?: \[focused\])? \[ref=`), "42")
		a.click(a.find(a.snapshot(), `button "Execute"`))
		a.expect("the request went out and was answered", "window.__result.responses", []any{map[string]any{"path": "/api/pets/42", "status": 200}})
		// The response body is shown on the page.
		a.do("browser_wait", map[string]any{"text": "Pet number 42"})
		if hits := a.sites.apiHits(); !slices.Contains(hits, "GET /api/pets/42") {
			a.t.Errorf("the API saw %v, want GET /api/pets/42", hits)
		}
	})
	a.task("chooseServerThenExecute", func(a *realAgent) {
		snap := a.open("swagger.html", "explorer ready")
		// Pick version 2 in the Servers list (a native <select>), then
		// run the operation against it.
		a.do("browser_select", map[string]any{"ref": a.findIn(snap, `.`, `Servers`, `combobox`), "values": []string{"/api/v2 - version 2"}})
		a.click(a.find(a.snapshot(), `button "GET /pets/\{petId\}`))
		a.click(a.await(`button "Try it out"`))
		a.typeText(a.await(`textbox "petId"(?: \[required\])?(?: \[focused\])? \[ref=`), "9")
		a.click(a.find(a.snapshot(), `button "Execute"`))
		a.expect("the request went to version 2", "window.__result.responses", []any{map[string]any{"path": "/api/v2/pets/9", "status": 200}})
	})
	// A service-sized API (128 operations) and a platform-sized one (320):
	// the operation wanted is the last on the page.
	a.task("bigAPILastOperation", func(a *realAgent) { lastOperation(a, "swagger-big.html") })
	a.task("hugeAPILastOperation", func(a *realAgent) { lastOperation(a, "swagger-big.html?huge") })
}

// lastOperation runs GET /warehouses/{warehouseId}/report, the last
// operation of a big API page.
func lastOperation(a *realAgent, page string) {
	snap := a.open(page, "explorer ready")
	a.logSize(page)
	want := regexp.MustCompile(`button "GET /warehouses/\{warehouseId\}/report`)
	if !want.MatchString(snap) && strings.Contains(snap, "[truncated:") {
		// The snapshot was cut at its budget, and says how to see the
		// rest: an agent asks for the actionable nodes only.
		a.t.Logf("note: the default snapshot (%d chars) is truncated before the operation; taking interactive: true", len(snap))
		snap = a.do("browser_snapshot", map[string]any{"interactive": true})
		a.t.Logf("interactive snapshot: %d characters", len(snap))
	}
	// A page that draws only the sections in view (Swagger UI does for
	// a big document) shows the last one once scrolled to: turn the
	// wheel down the page until it is there.
	for i := 0; !want.MatchString(snap); i++ {
		if i == 30 {
			a.t.Fatalf("the last operation never showed after %d wheel turns; snapshot:\n%s", i, clip(snap))
		}
		a.do("browser_scroll", map[string]any{"dy": 2000})
		snap = a.snapshot()
	}
	a.click(a.find(snap, want.String()))
	a.click(a.await(`button "Try it out"`))
	a.typeText(a.await(`textbox "warehouseId"(?: \[required\])?(?: \[focused\])? \[ref=`), "7")
	a.click(a.find(a.snapshot(), `button "Execute"`))
	a.expect("the report was fetched", "window.__result.responses", []any{map[string]any{"path": "/api/big/warehouses/7/report", "status": 200}})
}
