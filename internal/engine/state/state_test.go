package state_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/state"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }

// A storage state saved from one partition — cookies, local and session
// storage — loads into a fresh temp partition, where a page of the origin
// sees the cookie and the local storage; the file is Playwright's shape.
func TestStorageStateRoundTrip(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	a, _ := enginetest.StartPair(t)
	tab, err := surface.NewTabIn(enginetest.Ctx(t), b, "temp:from")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Navigate(enginetest.Ctx(t), tab, a.Page("basic.html")); err != nil {
		t.Fatal(err)
	}
	enginetest.EvalString(t, tab, `document.cookie = "sid=MK-SID; path=/; max-age=3600"; localStorage.setItem("token", "MK-TOKEN"); sessionStorage.setItem("step", "2"); "ok"`)
	st, err := state.Save(enginetest.Ctx(t), b, tab)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(st)
	for _, want := range []string{`"name":"sid","value":"MK-SID"`, `"localStorage":[{"name":"token","value":"MK-TOKEN"}]`, `"sessionStorage":[{"name":"step","value":"2"}]`, `"sameSite":"Lax"`} {
		if !strings.Contains(string(raw), want) {
			t.Fatalf("saved state lacks %s:\n%s", want, raw)
		}
	}
	// A fresh partition, with no page of the origin open.
	fresh, err := surface.NewTabIn(enginetest.Ctx(t), b, "temp:to")
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := state.Load(enginetest.Ctx(t), b, fresh, st)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Cookies != 1 || loaded.Origins != 1 || loaded.NoTab != 1 {
		t.Fatalf("loaded: %+v", loaded)
	}
	if _, err := nav.Navigate(enginetest.Ctx(t), fresh, a.Page("basic.html")); err != nil {
		t.Fatal(err)
	}
	if got := enginetest.EvalString(t, fresh, `document.cookie + " " + localStorage.getItem("token")`); got != "sid=MK-SID MK-TOKEN" {
		t.Fatalf("the fresh partition sees %q", got)
	}
	// The first partition is untouched by the second's load, and the
	// default one has none of it.
	other, err := surface.NewTabIn(enginetest.Ctx(t), b, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Navigate(enginetest.Ctx(t), other, a.Page("basic.html")); err != nil {
		t.Fatal(err)
	}
	if got := enginetest.EvalString(t, other, `document.cookie + "|" + localStorage.getItem("token")`); got != "|null" {
		t.Fatalf("the persist partition sees %q", got)
	}
}
