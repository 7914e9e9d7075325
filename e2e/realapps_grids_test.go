package e2e

// Grids, lists and maps of the real-app corpus: AG Grid, SortableJS,
// Leaflet.

import "strings"

// agGridTasks: an AG Grid of 1,000 rows (virtualised: only the rows in
// view are in the DOM).
func agGridTasks(a *realAgent) {
	a.task("sortByPrice", func(a *realAgent) {
		snap := a.open("ag-grid.html", "grid ready")
		a.logSize("ag-grid.html")
		a.click(a.find(snap, `columnheader "Price"`))
		a.expect("the grid is sorted by price, cheapest first", "[window.__result.sort, window.__result.first]",
			[]any{[]string{"price:asc"}, []float64{1, 1.1, 1.2}})
	})
	a.task("selectRowCheckbox", func(a *realAgent) {
		snap := a.open("ag-grid.html", "grid ready")
		// Tick the checkbox of the row of Product 3.
		a.click(a.findIn(snap, `- row\b`, `gridcell "Product 3"`, `checkbox`))
		a.expect("Product 3 is selected", "window.__result.selected", []string{"Product 3"})
	})
	a.task("editQty", func(a *realAgent) {
		snap := a.open("ag-grid.html", "grid ready")
		// Double-click the Qty cell of Product 2 (23), type the new
		// quantity into the cell editor, Enter.
		a.do("browser_click", map[string]any{"ref": a.findIn(snap, `- row\b`, `gridcell "Product 2"`, `gridcell "23"`), "double": true})
		a.do("browser_type", map[string]any{"ref": a.findIn(a.snapshot(), `- row\b`, `gridcell "Product 2"`, `spinbutton|textbox`), "text": "77", "clear": true, "submit": true})
		a.expect("the quantity changed", "window.__result.edits", []string{"Product 2 qty 77"})
	})
	a.task("filterProducts", func(a *realAgent) {
		snap := a.open("ag-grid.html", "grid ready")
		// The Product column's floating filter, under its header.
		a.typeText(a.find(snap, `textbox "Product[^"]*"`), "Product 777")
		a.expect("one row is left", "window.__result.shown", []string{"Product 777"})
	})
	a.task("dragColumnFirst", func(a *realAgent) {
		snap := a.open("ag-grid.html", "grid ready")
		// Drag the Price header onto the Product header: Price moves
		// before Product.
		a.do("browser_drag", map[string]any{"from": a.find(snap, `columnheader "Price"`), "to": a.find(snap, `columnheader "Product"`)})
		a.expect("Price is the first column", "window.__result.columns", []string{"price", "product", "qty"})
	})
	a.task("scrollToRow500", func(a *realAgent) {
		snap := a.open("ag-grid.html", "grid ready")
		// Product 500 is far below the rows in the DOM: turn the wheel
		// over the grid until its row shows, then tick its checkbox.
		grid := a.find(snap, `- grid\b`)
		for i := 0; !strings.Contains(snap, `gridcell "Product 500"`); i++ {
			if i == 80 {
				a.t.Fatalf("Product 500 never showed after %d wheel turns; snapshot:\n%s", i, clip(snap))
			}
			a.do("browser_scroll", map[string]any{"ref": grid, "dy": 400})
			snap = a.snapshot()
		}
		// The grid may still be redrawing its rows after the wheel: a
		// STALE_REF says so, and its hint (take a new snapshot) is what an
		// agent does next.
		for try := 0; ; try++ {
			r := a.call("browser_click", map[string]any{"ref": a.findIn(snap, `- row\b`, `gridcell "Product 500"`, `checkbox`)})
			if !r.isErr {
				break
			}
			if code, _ := errorOf(a.t, r); code != "STALE_REF" || try == 2 {
				a.t.Fatalf("click the checkbox of Product 500:\n%s", r.text)
			}
			a.t.Logf("retrying after %s", r.text)
			snap = a.snapshot()
		}
		a.expect("Product 500 is selected", "window.__result.selected", []string{"Product 500"})
	})
}

// sortableTasks: two SortableJS lists, one on native HTML5 drag and drop,
// one on Sortable's pointer-event fallback.
func sortableTasks(a *realAgent) {
	a.task("dragToTopNative", func(a *realAgent) {
		snap := a.open("sortable.html", "lists ready")
		a.logSize("sortable.html")
		// Drag "Echo offsite" onto "Alpha release": it becomes the first.
		a.do("browser_drag", map[string]any{"from": a.find(snap, `Echo offsite`), "to": a.find(snap, `Alpha release`)})
		a.expect("Echo is first this week", "window.__result.week",
			[]string{"Echo offsite", "Alpha release", "Bravo review", "Charlie hiring", "Delta budget"})
	})
	a.task("dragDownFallback", func(a *realAgent) {
		snap := a.open("sortable.html", "lists ready")
		// Drag "Fix login bug" onto "Update deps": it moves to third.
		a.do("browser_drag", map[string]any{"from": a.find(snap, `Fix login bug`), "to": a.find(snap, `Update deps`)})
		a.expect("the bug fix is third in the backlog", "window.__result.backlog",
			[]string{"Write docs", "Update deps", "Fix login bug", "Plan roadmap"})
	})
	a.task("moveAcrossLists", func(a *realAgent) {
		snap := a.open("sortable.html", "lists ready")
		// On the board, drag "Write tests" onto "Celebrate" in Done.
		a.do("browser_drag", map[string]any{"from": a.find(snap, `Write tests`), "to": a.find(snap, `Celebrate`)})
		a.expect("Write tests is done", "[window.__result.todo, window.__result.done]",
			[]any{[]string{"Review design"}, []string{"Ship it", "Write tests", "Celebrate"}})
	})
}

// leafletTasks: a Leaflet map of a local image (no tiles) with a marker.
func leafletTasks(a *realAgent) {
	a.task("zoomIn", func(a *realAgent) {
		snap := a.open("leaflet.html", "map ready")
		a.logSize("leaflet.html")
		a.click(a.find(snap, `(button|link) "Zoom in"`))
		a.expect("the map zoomed in one level", "window.__result.zoom - window.__result.startZoom", 1)
	})
	a.task("hoverMarkerTooltip", func(a *realAgent) {
		snap := a.open("leaflet.html", "map ready")
		a.do("browser_hover", map[string]any{"ref": a.find(snap, `"Lighthouse"`)})
		a.expect("the lighthouse's tooltip shows", "window.__result.tooltip", "Lit from dusk to dawn")
	})
	a.task("wheelZoom", func(a *realAgent) {
		snap := a.open("leaflet.html", "map ready")
		// Turn the wheel up over the map to zoom in.
		a.do("browser_scroll", map[string]any{"ref": a.findIn(snap, `.`, `"Zoom in"`, `- generic \[focusable\]|region|application`), "dy": -300})
		a.expect("the map zoomed in", "window.__result.zoom > window.__result.startZoom", true)
	})
	a.task("hideLayerFromControl", func(a *realAgent) {
		snap := a.open("leaflet.html", "map ready")
		// The layers control opens when the pointer is over it; untick
		// the buoys.
		a.do("browser_hover", map[string]any{"ref": a.find(snap, `"Layers"`)})
		a.click(a.await(`checkbox[^\n]*Buoys|Buoys[^\n]*checkbox`))
		a.expect("the buoys are hidden", "window.__result.buoys", false)
	})
	a.task("openMarkerPopup", func(a *realAgent) {
		snap := a.open("leaflet.html", "map ready")
		a.click(a.find(snap, `"Harbour office"`))
		a.expect("the marker's popup is open", "window.__result.popup", "<b>Harbour office</b><br>Open 9 to 17")
		a.do("browser_wait", map[string]any{"text": "Open 9 to 17"})
	})
}
