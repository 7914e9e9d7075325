package testpages

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// LargeRows is the number of table rows of the large page.
const LargeRows = 5000

// largePage builds the large fixture exactly as the shared peer bench's
// gen-large.mjs does: 5,000 table rows, a button in every fifth row and a
// link in the row after it (1,000 each), top and bottom markers. About 44k
// DOM nodes.
var largePage = sync.OnceValue(func() []byte { return tablePage("large fixture", "Large fixture", LargeRows) })

// MediumRows is the number of table rows of the medium page: the large
// page's shape at a tenth of its size (about 4,400 DOM nodes), for tests
// of reads of a page many screens long that need not pay for the large
// page's walk.
const MediumRows = 500

var mediumPage = sync.OnceValue(func() []byte { return tablePage("medium fixture", "Medium fixture", MediumRows) })

// HugeRows is the number of table rows of the huge page: about 108,000
// elements, for the snapshot of a page of 100,000.
const HugeRows = 20000

var hugePage = sync.OnceValue(func() []byte { return tablePage("huge fixture", "Huge fixture", HugeRows) })

// tablePage is the large fixture's shape with any number of rows.
func tablePage(title, heading string, rows int) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + title + "</title>\n")
	b.WriteString("<style>td{padding:0 4px;font:12px sans-serif}</style></head><body>\n")
	b.WriteString("<h1>" + heading + "</h1><p>MK-LARGE-TOP-4a2d</p>\n<p id=\"status\"></p>\n")
	b.WriteString("<script>function c(n){document.getElementById('status').textContent='clicked-row-'+n}</script>\n")
	b.WriteString("<table><thead><tr><th>#</th><th>Name</th><th>Value</th><th>Action</th></tr></thead><tbody>")
	for i := 1; i <= rows; i++ {
		action := ""
		switch i % 5 {
		case 1:
			action = fmt.Sprintf(`<button type="button" onclick="c(%d)">Edit %d</button>`, i, i)
		case 2:
			action = fmt.Sprintf(`<a href="#row-%d">Open %d</a>`, i, i)
		}
		fmt.Fprintf(&b, "\n<tr id=\"row-%d\"><td>%d</td><td>Item %d</td><td>%d</td><td>%s</td></tr>", i, i, i, (i*7919)%10007, action)
	}
	b.WriteString("\n</tbody></table>\n<p>MK-LARGE-BOTTOM-7f3b</p>\n</body></html>\n")
	return []byte(b.String())
}

func serveLarge(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch r.URL.Path {
	case "/huge.html":
		w.Write(hugePage())
		return
	case "/medium.html":
		w.Write(mediumPage())
		return
	}
	w.Write(largePage())
}
