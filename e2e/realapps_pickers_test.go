package e2e

// Pickers of the real-app corpus: flatpickr, Tom Select.

import (
	"regexp"
	"strings"
)

// flatpickrTasks: a date input with a flatpickr calendar, set to
// 10 March 2026.
func flatpickrTasks(a *realAgent) {
	a.task("pickDay", func(a *realAgent) {
		snap := a.open("flatpickr.html", "picker ready")
		a.logSize("flatpickr.html")
		// Open the calendar, click the 15th.
		a.click(a.find(snap, `textbox "Departure date"`))
		snap = a.snapshot()
		a.logSize("flatpickr.html (calendar open)")
		a.click(a.find(snap, `March 15, 2026|(: |")15("|$)`))
		a.expect("the 15th is picked", "window.__result.value", "2026-03-15")
	})
	a.task("nextMonthPickDay", func(a *realAgent) {
		snap := a.open("flatpickr.html", "picker ready")
		// Open the calendar, go to the next month, click the 20th.
		a.click(a.find(snap, `textbox "Departure date"`))
		a.click(nextArrow(a, a.snapshot()))
		a.click(a.find(a.snapshot(), `April 20, 2026|(: |")20("|$)`))
		a.expect("20 April is picked", "window.__result.value", "2026-04-20")
	})
	a.task("chooseMonthFromList", func(a *realAgent) {
		snap := a.open("flatpickr.html", "picker ready")
		// Open the calendar, choose June in its month list, click the 5th.
		a.click(a.find(snap, `textbox "Departure date"`))
		a.do("browser_select", map[string]any{"ref": a.find(a.snapshot(), `combobox "Month"`), "values": []string{"June"}})
		a.click(a.find(a.snapshot(), `June 5, 2026|(: |")5("|$)`))
		a.expect("5 June is picked", "window.__result.value", "2026-06-05")
	})
	a.task("pickDayInCrossSiteFrame", func(a *realAgent) {
		// The same picker as a widget another site embeds.
		snap := a.open("flatpickr-frame.html", "widget connected")
		a.logSize("flatpickr-frame.html")
		a.click(a.find(snap, `textbox "Departure date"`))
		a.click(a.await(`March 22, 2026|(: |")22("|$)`))
		a.expect("the 22nd is picked in the frame", "window.__result.value", "2026-03-22")
	})
}

// nextArrow finds flatpickr's next-month arrow as a model reading the
// snapshot would: a button named "Next month" if there is one, else the
// arrow (a clickable node holding only an image) that follows the month
// and year of the calendar's header.
func nextArrow(a *realAgent, snap string) string {
	a.t.Helper()
	if m := regexp.MustCompile(`(?i)"next( month)?"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(snap); m != nil {
		return m[2]
	}
	lines := strings.Split(snap, "\n")
	for i, l := range lines {
		if !strings.Contains(l, `spinbutton "Year"`) {
			continue
		}
		for j := i + 1; j+1 < len(lines); j++ {
			if m := refRE.FindStringSubmatch(lines[j]); m != nil && strings.HasPrefix(strings.TrimSpace(lines[j+1]), "- image") {
				return m[1]
			}
		}
	}
	a.t.Fatalf("no next-month control in:\n%s", clip(snap))
	return ""
}

// tomSelectTasks: two selects replaced by Tom Select: a fruit list and
// a list of 40 countries filtered as you type.
func tomSelectTasks(a *realAgent) {
	a.task("pickOption", func(a *realAgent) {
		snap := a.open("tom-select.html", "form ready")
		a.logSize("tom-select.html")
		a.click(a.find(snap, `combobox "Fruit"`))
		banana := a.await(`option "Banana"`)
		a.logSize("tom-select.html (fruit list open)")
		a.click(banana)
		a.expect("Banana is chosen", "window.__result.fruit", "banana")
	})
	a.task("typeToFilter", func(a *realAgent) {
		snap := a.open("tom-select.html", "form ready")
		// Type the start of the country, then click it in the filtered list.
		a.click(a.find(snap, `combobox "Ship to"`))
		a.typeText("", "nor")
		a.click(a.await(`option "Norway"`))
		a.expect("Norway is chosen", "window.__result.country", "NO")
	})
	a.task("typeAndEnter", func(a *realAgent) {
		snap := a.open("tom-select.html", "form ready")
		// Type until the wanted country is the first suggestion, Enter.
		a.click(a.find(snap, `combobox "Ship to"`))
		a.typeText("", "Cana")
		a.await(`option "Canada" \[selected\]`) // the highlighted suggestion
		a.press("Enter")
		a.expect("Canada is chosen", "window.__result.country", "CA")
	})
	a.task("createTag", func(a *realAgent) {
		snap := a.open("tom-select.html", "form ready")
		// A color that is not in the list is added by typing it, Enter.
		a.click(a.find(snap, `combobox "Colors"`))
		a.typeText("", "Purple")
		a.await(`(?i)add[^\n]*purple`)
		a.press("Enter")
		a.expect("purple is added", "window.__result.colors", []string{"red", "blue", "Purple"})
	})
	a.task("removeTag", func(a *realAgent) {
		snap := a.open("tom-select.html", "form ready")
		// Each chosen color is a tag with its own remove (×) control:
		// remove Blue's.
		a.click(a.findIn(snap, `.`, `Blue`, `(?i)remove|"×"|"x"`))
		a.expect("only Red is left", "window.__result.colors", []string{"red"})
	})
}
