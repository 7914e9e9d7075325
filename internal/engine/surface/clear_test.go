package surface_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/partition"
)

// storing serves a page, a service worker and a cacheable resource on
// host, counting the resource's requests.
func storing(t *testing.T, host string) (*httptest.Server, *atomic.Int64) {
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sw.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, "self.addEventListener('fetch', () => {});")
		case "/cached.txt":
			hits.Add(1)
			w.Header().Set("Cache-Control", "max-age=3600")
			fmt.Fprint(w, "cached")
		default:
			fmt.Fprint(w, "<title>store</title>")
		}
	}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &hits
}

// Every kind of storage a page keeps, set and read back.
const (
	fill = `await (async () => {
		document.cookie = 'k=v; path=/'; localStorage.setItem('k', 'v');
		await new Promise(ok => { const r = indexedDB.open('db1'); r.onsuccess = ok; r.onerror = ok; });
		await (await caches.open('c1')).put('/x', new Response('x'));
		await navigator.serviceWorker.register('/sw.js'); await navigator.serviceWorker.ready;
		await (await fetch('/cached.txt')).text();
		return 'ok' })()`
	kept = `await (async () => {
		const dbs = await indexedDB.databases(), sw = await navigator.serviceWorker.getRegistrations();
		return [document.cookie ? 'cookie' : '', localStorage.getItem('k') ? 'local' : '', dbs.length ? 'idb' : '',
			(await caches.keys()).length ? 'caches' : '', sw.length ? 'sw' : ''].filter(Boolean).join(',') })()`
)

// TestClearCacheThenAllData: clearing the cache takes Cache Storage,
// service workers and the HTTP cache of every origin of the persist
// partition and keeps cookies and site data; clearing all data takes
// everything of every origin there; a temp partition keeps its own.
func TestClearCacheThenAllData(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	ctx := enginetest.Ctx(t)
	a, aHits := storing(t, "127.0.0.1")
	other, _ := storing(t, "127.0.0.2")
	open := func(partition, url string) *engine.Surface {
		tab, err := surface.NewTabIn(ctx, b, partition)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nav.Navigate(ctx, tab, url); err != nil {
			t.Fatal(err)
		}
		if got := enginetest.EvalString(t, tab, fill); got != "ok" {
			t.Fatal(got)
		}
		return tab
	}
	pa, pb, temp := open(partition.Persist, a.URL+"/"), open(partition.Persist, other.URL+"/"), open("temp:keep", a.URL+"/")
	all := "cookie,local,idb,caches,sw"
	for _, tab := range []*engine.Surface{pa, pb, temp} {
		if got := enginetest.EvalString(t, tab, kept); got != all {
			t.Fatalf("%s keeps %q before any clear", tab.ID, got)
		}
	}
	refetch := func() int64 {
		enginetest.EvalString(t, pa, `await (await fetch('/cached.txt')).text()`)
		return aHits.Load()
	}
	before := aHits.Load()
	if n := refetch(); n != before {
		t.Fatalf("the cacheable resource was fetched again before the clear (%d → %d)", before, n)
	}

	if err := surface.ClearCache(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, tab := range []*engine.Surface{pa, pb} {
		if got := enginetest.EvalString(t, tab, kept); got != "cookie,local,idb" {
			t.Errorf("after clear cache %s keeps %q, want cookies and site data only", tab.ID, got)
		}
	}
	if got := enginetest.EvalString(t, temp, kept); got != all {
		t.Errorf("clear cache touched the temp partition: it keeps %q", got)
	}
	if n := refetch(); n != before+1 {
		t.Errorf("after clear cache the resource came from the HTTP cache (%d requests, want %d)", n, before+1)
	}

	if err := surface.ClearAllData(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, tab := range []*engine.Surface{pa, pb} {
		if got := enginetest.EvalString(t, tab, kept); got != "" {
			t.Errorf("after clear all data %s keeps %q", tab.ID, got)
		}
	}
	if got := enginetest.EvalString(t, temp, kept); got != all {
		t.Errorf("clear all data touched the temp partition: it keeps %q", got)
	}
}

// TestClearWithoutPersistTab: with only temp tabs open, a clear opens a
// persist tab for itself and closes it after.
func TestClearWithoutPersistTab(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	ctx := enginetest.Ctx(t)
	tmp, err := surface.NewTabIn(ctx, b, "temp:only")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range b.Pages() {
		if p != tmp {
			if err := surface.CloseTab(ctx, b, p.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := surface.ClearAllData(ctx, b); err != nil {
		t.Fatal(err)
	}
	enginetest.Eventually(t, "the clear's own tab closing", func() bool { return len(b.Pages()) == 1 })
	if b.Pages()[0] != tmp {
		t.Fatal("the temp tab is gone")
	}
}
