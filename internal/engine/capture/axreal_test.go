package capture_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/testenv"
)

// realappsDir is the real-app corpus (e2e/realapps): widget libraries from
// npm at pinned versions, installed by `make corpus`.
const realappsDir = "../../../e2e/realapps"

// realPages are the corpus pages the comparison runs on, with the text
// each shows once its widget is up.
var realPages = []struct{ page, ready string }{
	{"ag-grid.html", "grid ready"},
	{"codemirror.html", "editor ready"},
	{"element-plus.html", "kit ready"},
	{"flatpickr.html", "picker ready"},
	{"leaflet.html", "map ready"},
	{"material.html", "kit ready"},
	{"quill-editor.html", "editor ready"},
	{"shoelace.html", "kit ready"},
	{"sortable.html", "lists ready"},
	{"swagger.html", "explorer ready"},
	{"tom-select.html", "form ready"},
}

// realServer serves the corpus on loopback: pages with {{A}} and {{B}}
// both naming this origin, the libraries, and the spec.
func realServer(t *testing.T) *httptest.Server {
	t.Helper()
	modules := http.StripPrefix("/node_modules/", http.FileServer(http.Dir(testenv.Corpus(t, realappsDir))))
	files := http.FileServer(http.Dir(realappsDir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clean := path.Clean(r.URL.Path)
		switch {
		case strings.HasPrefix(clean, "/api/"):
			// The swagger page's document is pages/openapi.json; the
			// API itself is answered by the e2e server, not read here.
			w.Header().Set("Content-Type", "application/json")
			if clean == "/api/openapi.json" {
				http.ServeFile(w, r, filepath.Join(realappsDir, "pages", "openapi.json"))
			} else {
				w.Write([]byte(`{}`))
			}
		case strings.HasPrefix(clean, "/pages/") && strings.HasSuffix(clean, ".html"):
			b, err := os.ReadFile(filepath.Join(realappsDir, filepath.FromSlash(clean)))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			origin := []byte("http://" + r.Host)
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("{{A}}"), origin), []byte("{{B}}"), origin)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(b)
		case strings.HasPrefix(clean, "/node_modules/"):
			modules.ServeHTTP(w, r)
		case strings.HasPrefix(clean, "/pages/"):
			files.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAXCompareRealApps holds the page agent to Chromium's accessibility
// tree on the real-app corpus, as TestAXCompare does on the fixtures:
// every element the agent emits must have Chromium's role and name, up to
// the known differences (docs/fidelity.md).
func TestAXCompareRealApps(t *testing.T) {
	t.Parallel()
	srv := realServer(t)
	dump := os.Getenv("LOUPE_AXDUMP") != ""
	tab := openTab(t, "") // for every page in turn (see enginetest.Goto)
	for _, p := range realPages {
		t.Run(strings.TrimSuffix(p.page, ".html"), func(t *testing.T) {
			gotoPage(t, tab, srv.URL+"/pages/"+p.page)
			ctx := longCtx(t) // a comparison is hundreds of calls
			if _, err := nav.Wait(ctx, tab, nav.WaitOptions{Text: p.ready}); err != nil {
				t.Fatalf("%s did not show %q: %v", p.page, p.ready, err)
			}
			// The widgets finish drawing after they say so (fonts, a
			// first layout pass): one settled animation frame more.
			if _, err := action.Eval(ctx, tab, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))`); err != nil {
				t.Fatal(err)
			}
			r, err := compareAX(ctx, tab)
			if err != nil {
				t.Fatal(err)
			}
			r.report(t, p.page, dump)
		})
	}
}
