package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var previewURLAny = regexp.MustCompile(`http://[0-9a-f]{48}\.localhost:\d+/`)

// counted serves /NAME as a page titled NAME and counts the requests for
// each page.
type counted struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func serveCounted(t *testing.T) *counted {
	c := &counted{hits: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/favicon.ico" {
			http.NotFound(w, r)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		c.mu.Lock()
		c.hits[name]++
		c.mu.Unlock()
		fmt.Fprintf(w, `<!doctype html><title>%s</title><h1>MK-%s</h1><button>Go</button>`, name, name)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *counted) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[name]
}

type restoredTabs struct {
	Tabs []struct {
		ID, Title, URL, Owner, Partition string
		Restored                         bool
	}
}

// TestRestoreAfterDaemonRestart: after `daemon stop` and a new daemon the
// session's tabs come back in order, with their owners, titles, viewport
// preference and previewed file, as placeholders that load nothing until
// an operation works in one; temp tabs, preview tokens, grants and refs
// do not come back — a ref from before the restart is refused, never
// reissued.
func TestRestoreAfterDaemonRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := serveCounted(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	os.WriteFile(page, []byte(`<title>Local report</title><p>MK-LOCAL-REPORT</p>`), 0o600)

	e.ok("open", srv.URL+"/alpha")
	e.ok("viewport", "390x700")
	before := e.ok("snapshot")
	oldRef := refOf(t, before, "button", "Go")
	e.ok("--task", "t1", "tab", "new", srv.URL+"/beta")
	e.ok("open", srv.URL+"/gamma", "--partition", "temp:x")
	e.ok("tab", "new")
	e.ok("preview", page)
	e.ok("daemon", "stop")

	kept, err := os.ReadFile(filepath.Join(e.home, "tabs.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"gamma", ".localhost:", "grant", oldRef} {
		if strings.Contains(string(kept), bad) {
			t.Fatalf("the tabs file keeps %q:\n%s", bad, kept)
		}
	}
	loads := map[string]int{"alpha": srv.count("alpha"), "beta": srv.count("beta")}

	// A new daemon: the tabs are listed, nothing has loaded.
	var tabs restoredTabs
	e.okJSON(&tabs, "tabs")
	if len(tabs.Tabs) != 3 {
		t.Fatalf("restored tabs: %+v", tabs.Tabs)
	}
	a, b, p := tabs.Tabs[0], tabs.Tabs[1], tabs.Tabs[2]
	if a.URL != srv.URL+"/alpha" || a.Title != "alpha" || b.URL != srv.URL+"/beta" || b.Owner != "t1" ||
		!strings.Contains(p.URL, page) || p.Title != "Local report" {
		t.Fatalf("restored tabs: %+v", tabs.Tabs)
	}
	for _, tb := range tabs.Tabs {
		if !tb.Restored || tb.Partition != "persist" {
			t.Fatalf("tab %s: restored %v, partition %q", tb.ID, tb.Restored, tb.Partition)
		}
	}
	if srv.count("alpha") != loads["alpha"] || srv.count("beta") != loads["beta"] {
		t.Fatal("a restored tab loaded before anything worked in it")
	}
	if out := e.ok("tabs"); strings.Count(out, "[restored]") != 3 {
		t.Fatalf("tabs text:\n%s", out)
	}

	// The old ref is refused as gone, not acted on.
	r := e.run("click", oldRef)
	if r.code == 0 || !strings.Contains(r.stderr, "STALE_REF") {
		t.Fatalf("a ref from before the restart: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// That first access loaded the first tab, at its viewport.
	if srv.count("alpha") != loads["alpha"]+1 {
		t.Fatalf("the first tab loaded %d times on its first access", srv.count("alpha")-loads["alpha"])
	}
	if got := e.ok("eval", "innerWidth + 'x' + innerHeight"); !strings.Contains(got, "390x700") {
		t.Fatalf("restored viewport: %s", got)
	}
	if srv.count("beta") != loads["beta"] {
		t.Fatal("working in one tab loaded another")
	}

	// Switching to t1's tab loads it; it is still t1's.
	e.ok("tab", "activate", b.ID)
	if srv.count("beta") != loads["beta"]+1 {
		t.Fatal("switching to a restored tab did not load it")
	}
	if snap := e.ok("snapshot"); !strings.Contains(snap, "MK-beta") {
		t.Fatalf("the restored tab's snapshot:\n%s", snap)
	}
	// A shell working as a task has a current tab of its own: each
	// selects t1's tab first.
	e.ok("--task", "t2", "tab", "activate", b.ID)
	r = e.run("--task", "t2", "press", "Shift")
	if r.code == 0 || !strings.Contains(r.stderr, "NO_GRANT") || !strings.Contains(r.stderr, `"t1"`) {
		t.Fatalf("another task's write in t1's restored tab: exit %d\n%s", r.code, r.stderr)
	}
	e.ok("--task", "t1", "tab", "activate", b.ID)
	e.ok("--task", "t1", "press", "Shift")

	// The preview is authorised afresh, under a new token.
	e.ok("tab", "activate", p.ID)
	if !previewURLAny.MatchString(e.ok("status")) || !strings.Contains(e.ok("snapshot"), "MK-LOCAL-REPORT") {
		t.Fatal("the restored preview did not load its file under a token")
	}

	// An MCP server on the daemon sees the same tabs, restored no more.
	m := startMCP(t, e, "--daemon")
	if text := m.ok("browser_tabs", map[string]any{}); strings.Contains(text, "[restored]") || !strings.Contains(text, "beta") {
		t.Fatalf("browser_tabs after the loads:\n%s", text)
	}
	if text := m.ok("browser_viewport", map[string]any{"size": "800x600"}); !strings.Contains(text, "800x600") {
		t.Fatalf("browser_viewport:\n%s", text)
	}
	if r := m.call("browser_viewport", map[string]any{"size": "huge"}); !r.isErr {
		t.Fatalf("a bad size: %s", r.text)
	}

	// close forgets the session's tabs: the next daemon starts blank.
	e.ok("close")
	e.ok("daemon", "stop")
	var after restoredTabs
	e.okJSON(&after, "tabs")
	if len(after.Tabs) != 1 || after.Tabs[0].Restored || after.Tabs[0].URL != "about:blank" {
		t.Fatalf("after close and a restart: %+v", after.Tabs)
	}
}

// TestRestoreAfterKill: a daemon killed outright leaves the tabs file of
// its last operation; the next restores from it and skips a margin of
// surface ids (one may have been announced after the last write).
func TestRestoreAfterKill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := serveCounted(t)
	e.ok("open", srv.URL+"/alpha")
	e.ok("tab", "new", srv.URL+"/beta")
	var st struct{ PID int }
	e.okJSON(&st, "daemon", "status")
	if err := kill(st.PID); err != nil {
		t.Fatal(err)
	}
	e.waitNoProcesses(15 * time.Second)
	var tabs restoredTabs
	e.okJSON(&tabs, "tabs")
	if len(tabs.Tabs) != 2 || tabs.Tabs[1].URL != srv.URL+"/beta" || !tabs.Tabs[1].Restored {
		t.Fatalf("after a kill: %+v", tabs.Tabs)
	}
	var n int
	fmt.Sscanf(tabs.Tabs[0].ID, "s%d", &n)
	if n < 1000 {
		t.Fatalf("after an unclean stop the first surface id is %s, want one past a margin", tabs.Tabs[0].ID)
	}
}

// TestIDsSurviveTheTabsFileLoss: the tabs file is not the only record of
// the numbers a session handed out. Deleted, then corrupted before a
// restart, the next daemon still numbers past them: a ref and a surface
// id from before are refused as gone, never reissued to a new element.
func TestIDsSurviveTheTabsFileLoss(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := serveCounted(t)
	tabsFile := filepath.Join(e.home, "tabs.json")
	var seenRefs []string
	var seenTabs []string
	// The first run issues ids; before each restart after it, the file is lost.
	for _, loss := range []string{"", "deleted", "corrupted"} {
		switch loss {
		case "deleted":
			if err := os.Remove(tabsFile); err != nil {
				t.Fatal(err)
			}
		case "corrupted":
			if err := os.WriteFile(tabsFile, []byte("{not json"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		e.ok("open", srv.URL+"/page")
		snap := e.ok("snapshot")
		for _, old := range seenRefs {
			if strings.Contains(snap, "[ref="+old+"]") {
				t.Fatalf("after the tabs file was %s, ref %s was issued again:\n%s", loss, old, snap)
			}
		}
		var tabs restoredTabs
		e.okJSON(&tabs, "tabs")
		for _, tb := range tabs.Tabs {
			for _, old := range seenTabs {
				if tb.ID == old {
					t.Fatalf("after the tabs file was %s, surface id %s was issued again", loss, old)
				}
			}
			seenTabs = append(seenTabs, tb.ID)
		}
		for _, old := range seenRefs {
			if r := e.run("click", old); r.code == 0 || !strings.Contains(r.stderr, "STALE_REF") {
				t.Fatalf("a ref from before the restart: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		}
		seenRefs = append(seenRefs, refOf(t, snap, "button", "Go"))
		e.ok("daemon", "stop")
	}
}
