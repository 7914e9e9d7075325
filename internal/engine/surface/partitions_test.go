package surface_test

import (
	"errors"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/partition"
)

// openIn opens the fixture page in a new tab of a partition.
func openIn(t *testing.T, b *engine.Browser, partition string) *engine.Surface {
	t.Helper()
	tab, err := surface.NewTabIn(enginetest.Ctx(t), b, partition)
	if err != nil {
		t.Fatalf("new tab in %s: %v", partition, err)
	}
	if _, err := nav.Navigate(enginetest.Ctx(t), tab, enginetest.Page("basic.html")); err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestPartitionsKeepCookiesApart: a cookie and a stored value set in
// temp:a are seen by temp:a's other tabs only — not in persist, not in
// temp:b — and are gone once temp:a's last tab has closed.
func TestPartitionsKeepCookiesApart(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	a1 := openIn(t, b, "temp:a")
	enginetest.EvalString(t, a1, `(document.cookie = 'k=from-a; path=/', localStorage.setItem('k', 'from-a'), 'set')`)
	jar := func(tab *engine.Surface) string {
		return enginetest.EvalString(t, tab, `document.cookie + '|' + (localStorage.getItem('k') || '')`)
	}
	if got := jar(a1); got != "k=from-a|from-a" {
		t.Fatalf("temp:a's own tab reads %q", got)
	}
	persist, tempB, a2 := openIn(t, b, ""), openIn(t, b, "temp:b"), openIn(t, b, "temp:a")
	for _, c := range []struct {
		tab  *engine.Surface
		want string
	}{{persist, "|"}, {tempB, "|"}, {a2, "k=from-a|from-a"}} {
		if got := jar(c.tab); got != c.want {
			t.Errorf("%s (%s) reads %q, want %q", c.tab.ID, surface.PartitionOf(b, c.tab), got, c.want)
		}
	}
	parts := map[string]string{}
	for _, ti := range surface.Tabs(enginetest.Ctx(t), b) {
		parts[ti.ID] = ti.Partition
	}
	if parts[a1.ID] != "temp:a" || parts[a2.ID] != "temp:a" || parts[tempB.ID] != "temp:b" || parts[persist.ID] != partition.Persist {
		t.Fatalf("tabs' partitions: %v", parts)
	}
	// temp:a's last tab closes: its context goes, and a new temp:a starts
	// empty.
	for _, tab := range []*engine.Surface{a1, a2} {
		if err := surface.CloseTab(enginetest.Ctx(t), b, tab.ID); err != nil {
			t.Fatal(err)
		}
	}
	if got := jar(openIn(t, b, "temp:a")); got != "|" {
		t.Fatalf("a new temp:a after the last one closed reads %q", got)
	}
	if got := jar(tempB); got != "|" {
		t.Fatalf("temp:b changed: %q", got)
	}
}

// TestTabLimit: the 33rd tab is refused, not executed, and nothing is
// closed to make room.
func TestTabLimit(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	for b.TabCount() < surface.TabLimit {
		if _, err := surface.NewTab(enginetest.Ctx(t), b); err != nil {
			t.Fatalf("tab %d: %v", b.TabCount()+1, err)
		}
	}
	_, err := surface.NewTabIn(enginetest.Ctx(t), b, "temp:x")
	var e *apitype.Error
	if !errors.As(err, &e) || e.Code != apitype.TabLimit || !e.NotExecuted || len(e.Recovery) == 0 {
		t.Fatalf("the 33rd tab: %v (%+v)", err, e)
	}
	if n := b.TabCount(); n != surface.TabLimit {
		t.Fatalf("%d tabs after the refusal", n)
	}
}

// TestNewTabsOwnWindows: each tab loupe opens, in any partition, is a
// window of its own, so that no agent's tab sits undrawn behind another's.
func TestNewTabsOwnWindows(t *testing.T) {
	t.Parallel()
	b := enginetest.OwnBrowser(t)
	one := openIn(t, b, "")
	two := openIn(t, b, "")
	temp := openIn(t, b, "temp:w")
	win := map[string]int64{}
	for _, w := range surface.Windows(enginetest.Ctx(t), b) {
		win[w.ID] = w.WindowID
	}
	seen := map[int64]string{}
	for _, tab := range []*engine.Surface{one, two, temp} {
		id := win[tab.ID]
		if id == 0 {
			t.Fatalf("no window for %s: %v", tab.ID, win)
		}
		if other, ok := seen[id]; ok {
			t.Fatalf("%s shares window %d with %s", tab.ID, id, other)
		}
		seen[id] = tab.ID
	}
	for _, tab := range []*engine.Surface{one, two, temp} {
		if got := enginetest.EvalString(t, tab, "document.visibilityState"); got != "visible" {
			t.Fatalf("%s is %s", tab.ID, got)
		}
	}
}
