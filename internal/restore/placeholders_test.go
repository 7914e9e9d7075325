package restore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/viewport"
)

// pages serves /NAME as a page titled NAME and counts the requests for
// each.
func pages(t testing.TB) (*httptest.Server, func(name string) int64) {
	var mu sync.Mutex
	hits := map[string]*atomic.Int64{}
	count := func(name string) *atomic.Int64 {
		mu.Lock()
		defer mu.Unlock()
		if hits[name] == nil {
			hits[name] = &atomic.Int64{}
		}
		return hits[name]
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		count(r.URL.Path[1:]).Add(1)
		fmt.Fprintf(w, "<!doctype html><title>%s</title><p>%s</p>", r.URL.Path[1:], r.URL.Path[1:])
	}))
	t.Cleanup(srv.Close)
	return srv, func(name string) int64 { return count(name).Load() }
}

// TestRestorePlaceholders: kept tabs come back in order as blank
// placeholders that load nothing until an operation loads them; a load
// happens once however many callers ask at the same time, applies the
// viewport preference, and a preview is authorised afresh.
func TestRestorePlaceholders(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	srv, hits := pages(t)
	ctx := enginetest.Ctx(t)
	entries := []restore.Entry{
		{Task: "a", URL: srv.URL + "/first", Title: "first"},
		{URL: srv.URL + "/second", Title: "second", Viewport: &viewport.Viewport{Width: 390, Height: 700}},
		{Task: "a", Title: "report", Preview: "/somewhere/report.html"},
		{URL: srv.URL + "/fourth", Title: "fourth"},
	}
	tabs, err := restore.Restore(ctx, b, entries)
	if err != nil {
		t.Fatal(err)
	}
	pagesNow := b.Pages()
	if len(tabs) != 4 || len(pagesNow) != 4 {
		t.Fatalf("restored %d tabs, the browser has %d pages; want 4 and 4 (the first blank tab reused)", len(tabs), len(pagesNow))
	}
	for i, tab := range tabs {
		if pagesNow[i] != tab {
			t.Errorf("tab %d is %s, page %d is %s: order not kept", i, tab.ID, i, pagesNow[i].ID)
		}
		e, ok := restore.Pending(b, tab.ID)
		if !ok || e.Title != entries[i].Title {
			t.Errorf("tab %s pending %v %+v, want %+v", tab.ID, ok, e, entries[i])
		}
		if tab.URL() != "about:blank" {
			t.Errorf("placeholder %s shows %s before any access", tab.ID, tab.URL())
		}
	}
	if n := hits("first") + hits("second") + hits("fourth"); n != 0 {
		t.Fatalf("%d pages were requested before any access", n)
	}

	// Three callers access the first tab at once: one load.
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() { errs <- restore.Load(ctx, b, tabs[0], true, nil) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := hits("first"); n != 1 {
		t.Errorf("first was requested %d times by three concurrent loads, want 1", n)
	}
	if _, ok := restore.Pending(b, tabs[0].ID); ok || tabs[0].URL() != srv.URL+"/first" {
		t.Errorf("after its load tab %s is at %s (pending %v)", tabs[0].ID, tabs[0].URL(), ok)
	}
	if err := restore.Load(ctx, b, tabs[0], true, nil); err != nil || hits("first") != 1 {
		t.Errorf("a second load: %v, %d requests", err, hits("first"))
	}

	// The second keeps its viewport preference.
	if err := restore.Load(ctx, b, tabs[1], true, nil); err != nil {
		t.Fatal(err)
	}
	if w := enginetest.EvalString(t, tabs[1], `String(innerWidth) + 'x' + innerHeight`); w != "390x700" {
		t.Errorf("restored viewport %s, want 390x700", w)
	}
	if v, ok := restore.ViewportOf(b, tabs[1].ID); !ok || v.Width != 390 {
		t.Errorf("viewport preference %+v %v", v, ok)
	}

	// The preview is authorised again by its file; a refusal uses the
	// placeholder up and says why.
	var asked string
	err = restore.Load(ctx, b, tabs[2], true, func(file string) (string, error) {
		asked = file
		return "", errors.New("no such file")
	})
	if err == nil || asked != "/somewhere/report.html" {
		t.Fatalf("preview load: %v (asked for %q)", err, asked)
	}
	if _, ok := restore.Pending(b, tabs[2].ID); ok {
		t.Error("a failed preview load left the placeholder pending")
	}

	// A caller about to open another address uses the placeholder up
	// without loading it.
	if err := restore.Load(ctx, b, tabs[3], false, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := restore.Pending(b, tabs[3].ID); ok || hits("fourth") != 0 {
		t.Errorf("open=false: pending %v, %d requests", ok, hits("fourth"))
	}
}

// TestLoadHonoursDeadline: a caller that comes while another loads the
// tab waits for that load to end (it never acts on a half-loaded
// placeholder), but no longer than its own deadline.
func TestLoadHonoursDeadline(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	got, block := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
		<-block
		fmt.Fprint(w, "<title>slow</title>")
	}))
	t.Cleanup(srv.Close)
	ctx := enginetest.Ctx(t)
	tabs, err := restore.Restore(ctx, b, []restore.Entry{{URL: srv.URL + "/slow"}})
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { first <- restore.Load(ctx, b, tabs[0], true, nil) }()
	<-got // the first load holds the tab
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := restore.Load(short, b, tabs[0], true, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a caller behind a load: %v, want its deadline", err)
	}
	close(block)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if _, ok := restore.Pending(b, tabs[0].ID); ok || tabs[0].Title() != "slow" {
		t.Errorf("after the load: pending %v, title %q", ok, tabs[0].Title())
	}
}
