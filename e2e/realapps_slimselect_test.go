package e2e

import (
	"regexp"
	"strings"
)

// Slim Select: each <select> is kept in the page shrunk to 1px,
// transparent and clipped, under the combobox Slim Select draws; each
// combobox's list stays in the page while closed (transparent, squashed
// to no height); a chosen value of a multiple select has its own
// "Remove" control inside the combobox.

// slimSelectTasks: a job form with two offices (the same four cities)
// and a multiple select of skills (Go and Rust chosen).
func slimSelectTasks(a *realAgent) {
	a.task("pickOffice", func(a *realAgent) {
		snap := a.open("slim-select.html", "form ready")
		a.logSize("slim-select.html")
		a.click(a.find(snap, `combobox "Office"`))
		oslo := a.await(`option "Oslo"`)
		a.logSize("slim-select.html (office list open)")
		a.click(oslo)
		a.expect("Oslo is the office", "window.__result.office", "oslo")
	})
	a.task("searchSkill", func(a *realAgent) {
		snap := a.open("slim-select.html", "form ready")
		// Open the skills, type part of one into the list's search field,
		// click it.
		a.click(a.find(snap, `combobox "Skills"`))
		a.typeText("", "pyt")
		// The list is drawn again as the search settles: an option found
		// a moment before may be gone (STALE_REF), or move or be replaced
		// as it is pressed; a new snapshot and another click
		// is what an agent does next.
		for try := 0; ; try++ {
			r := a.call("browser_click", map[string]any{"ref": a.await(`option "Python"`)})
			if !r.isErr && !strings.Contains(r.text, "no click reached") {
				break
			}
			if !r.isErr && try < 2 {
				a.t.Logf("retrying after %s", r.text)
				continue
			}
			if code, _ := errorOf(a.t, r); (code != "STALE_REF" && !strings.Contains(r.text, "moved as it was clicked")) || try == 2 {
				a.t.Fatalf("click Python:\n%s", r.text)
			}
			a.t.Logf("retrying after %s", r.text)
			// A press that may have run: see first whether it did.
			if strings.Contains(r.text, "moved as it was clicked") && regexp.MustCompile(`combobox "Skills"[^\n]*Python`).MatchString(a.snapshot()) {
				break
			}
		}
		a.expect("Python is added", "window.__result.skills", []string{"go", "python", "rust"})
	})
	a.task("removeSkill", func(a *realAgent) {
		snap := a.open("slim-select.html", "form ready")
		a.click(a.find(snap, `button "Remove Rust"`))
		a.expect("only Go is left", "window.__result.skills", []string{"go"})
	})
	a.task("pickBackupOffice", func(a *realAgent) {
		snap := a.open("slim-select.html", "form ready")
		// The backup office offers the same cities as the office: the
		// Oslo to click is the one its open list shows.
		a.click(a.find(snap, `combobox "Backup office"`))
		a.click(a.await(`option "Oslo"`))
		a.expect("Oslo is the backup office", "window.__result", map[string]any{"office": "berlin", "backup": "oslo", "skills": []string{"go", "rust"}})
	})
}
