package capture_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

// cachePage is the page the equivalence test changes at random.
const cachePage = `<!doctype html><style>.hide{display:none}.faint{visibility:hidden}</style>
<h1>Cache</h1><main id="m"><p id="p0">text 0</p><button id="b0">Button 0</button>
<input id="i0" aria-label="Field 0" value="v0"><input type="checkbox" id="c0" aria-label="Check 0">
<select id="s0" aria-label="Pick 0"><option>one</option><option>two</option></select>
<details id="d0"><summary>More 0</summary><a href="#x0">Inside 0</a></details>
<div id="host"></div></main><div style="height:3000px"></div>
<script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML = '<button id="sb">Shadow 0</button>';</script>`

// mutations are what a page does between two snapshots; each is a script
// run in the page's own world, given a random number n.
var mutations = []string{
	`(n) => { const p = document.createElement('p'); p.textContent = 'new ' + n; document.getElementById('m').appendChild(p); }`,
	`(n) => { const b = document.createElement('button'); b.textContent = 'Made ' + n; document.getElementById('m').prepend(b); }`,
	`(n) => { const m = document.getElementById('m'); const k = m.children; if (k.length > 3) k[n % k.length].remove(); }`,
	`(n) => { const els = document.querySelectorAll('#m p, #m button'); if (els.length) els[n % els.length].textContent = 'changed ' + n; }`,
	`(n) => { const els = document.querySelectorAll('#m > *'); if (els.length) els[n % els.length].classList.toggle('hide'); }`,
	`(n) => { const els = document.querySelectorAll('#m > *'); if (els.length) els[n % els.length].classList.toggle('faint'); }`,
	`(n) => { const els = document.querySelectorAll('#m button'); if (els.length) els[n % els.length].style.display = n % 2 ? 'none' : ''; }`,
	`(n) => { document.getElementById('i0').value = 'typed ' + n; }`,
	`(n) => { document.getElementById('c0').checked = !!(n % 2); }`,
	`(n) => { document.getElementById('s0').selectedIndex = n % 2; }`,
	`(n) => { document.getElementById('d0').open = !!(n % 2); }`,
	`(n) => { const els = document.querySelectorAll('button, input, a'); if (els.length) els[n % els.length].focus(); }`,
	`(n) => { window.scrollTo(0, (n % 5) * 300); }`,
	`(n) => { document.title = 'Title ' + n; }`,
	`(n) => { history.replaceState(null, '', '#step' + n); }`,
	`(n) => { const r = document.getElementById('host').shadowRoot; const b = document.createElement('button'); b.textContent = 'Shadow ' + n; r.appendChild(b); }`,
	`(n) => { const r = document.getElementById('host').shadowRoot; const k = r.children; if (k.length > 1) k[n % k.length].remove(); }`,
	`(n) => { document.getElementById('b0').setAttribute('aria-label', 'Labelled ' + n); }`,
	`(n) => { document.getElementById('b0').disabled = !!(n % 2); }`,
	`(n) => {}`,
}

// TestCachedSnapshotEqualsFresh drives random sequences of DOM, style,
// value, focus, scroll, title, address and shadow-root changes on a page
// and, after each, compares the snapshot the agent may serve from its last
// walk with a fresh walk: the text and the ref table must be identical.
func TestCachedSnapshotEqualsFresh(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, cachePage)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tab, err := surface.NewTab(ctx, enginetest.Browser())
	if err != nil {
		t.Fatal(err)
	}
	defer surface.CloseTab(context.Background(), enginetest.Browser(), tab.ID)
	for _, seed := range []uint64{1, 2, 3} {
		if _, err := nav.Navigate(ctx, tab, srv.URL+"/"); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		for step := range 40 {
			i, n := rng.IntN(len(mutations)), rng.IntN(1000)
			expr := fmt.Sprintf("(%s)(%d)", mutations[i], n)
			if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr}, nil); err != nil {
				t.Fatal(err)
			}
			// Let the page finish what it does on its own after the change
			// (the browser moves focus off a disabled element, fires scroll
			// events, at its next frame): two snapshots taken across that
			// would differ with or without a cache.
			if err := tab.Session().Call(ctx, "Runtime.evaluate", map[string]any{
				"expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))", "awaitPromise": true}, nil); err != nil {
				t.Fatal(err)
			}
			cached, err := capture.Take(ctx, tab, capture.SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := capture.Take(ctx, tab, capture.SnapshotOptions{NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if cached.Text != fresh.Text || !reflect.DeepEqual(cached.Refs, fresh.Refs) {
				t.Fatalf("seed %d step %d (mutation %d, n %d): the snapshot differs from a fresh walk\ncached:\n%s\nfresh:\n%s", seed, step, i, n, cached.Text, fresh.Text)
			}
		}
	}
}
