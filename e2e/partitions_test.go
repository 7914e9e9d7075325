package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestPartitionsFromTheCLI: open --partition and tab new --partition open
// tabs in temp partitions that tabs names, a cookie set in one is not in
// the session's own, a bad name is a usage error that opens nothing.
func TestPartitionsFromTheCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	e.ok("open", srv.Page("basic.html"), "--partition", "temp:one")
	e.ok("eval", `document.cookie = 'who=temp-one; path=/'`)
	if got := e.ok("eval", "document.cookie"); !strings.Contains(got, "who=temp-one") {
		t.Fatalf("the temp tab's own cookie: %q", got)
	}
	e.ok("tab", "new", srv.Page("basic.html"))
	if got := e.ok("eval", "document.cookie"); strings.Contains(got, "who=") {
		t.Fatalf("a persist tab reads the temp partition's cookie: %q", got)
	}
	var tabs struct {
		Tabs []struct {
			ID, Partition, Session string
		}
	}
	e.okJSON(&tabs, "tabs")
	var parts []string
	for _, tb := range tabs.Tabs {
		parts = append(parts, tb.Partition)
		if tb.Session != "default" {
			t.Errorf("tab %s's session: %q", tb.ID, tb.Session)
		}
	}
	if strings.Join(parts, ",") != "persist,temp:one,persist" {
		t.Fatalf("partitions of the tabs: %v", parts)
	}
	// A hand-over moves the tab's epoch on, which tabs shows.
	e.ok("takeover")
	e.ok("resume")
	var after struct {
		Tabs []struct {
			ID    string
			Epoch int64
		}
	}
	e.okJSON(&after, "tabs")
	if after.Tabs[2].Epoch == 0 || after.Tabs[0].Epoch != 0 {
		t.Fatalf("epochs after a take-over and resume of the current tab: %+v", after.Tabs)
	}
	if out := e.ok("tabs"); !strings.Contains(out, "[temp:one]") {
		t.Fatalf("tabs does not name the temp partition:\n%s", out)
	}
	r := e.run("tab", "new", "--partition", "temp:no spaces")
	if r.code != 2 || !strings.Contains(r.stderr, "partition") {
		t.Fatalf("a bad partition: exit %d\n%s", r.code, r.stderr)
	}
	e.okJSON(&tabs, "tabs")
	if len(tabs.Tabs) != 3 {
		t.Fatalf("a refused tab new opened a tab: %d tabs", len(tabs.Tabs))
	}
}

// TestPartitionsFromMCP: browser_navigate and browser_tabs take a
// partition; browser_tabs lists it; a bad one is BAD_INPUT, not executed.
func TestPartitionsFromMCP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	m := startMCP(t, e)
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	m.ok("browser_navigate", map[string]any{"url": srv.Page("basic.html"), "partition": "temp:m1"})
	m.ok("browser_tabs", map[string]any{"action": "new", "url": srv.Page("form.html"), "partition": "temp:m2"})
	list := m.ok("browser_tabs", nil)
	if !strings.Contains(list, "[temp:m1]") || !strings.Contains(list, "[temp:m2]") {
		t.Fatalf("browser_tabs does not name the partitions:\n%s", list)
	}
	r := m.call("browser_tabs", map[string]any{"action": "new", "partition": "shared"})
	if code, notExecuted := errorOf(t, r); !r.isErr || code != "BAD_INPUT" || !notExecuted {
		t.Fatalf("a bad partition over MCP: %v %s", r.isErr, r.text)
	}
}

// TestDownloadInTempPartition: a download a page in a temp partition
// starts completes into the session's files, as in the default one (it
// used to end "canceled, 0 bytes": only the default context was told
// where downloads go).
func TestDownloadInTempPartition(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("download.html"), "--partition", "temp:dl")
	e.ok("click", `role=link[name="Download report"]`)
	var got struct {
		Downloads []struct {
			State    string `json:"state"`
			Path     string `json:"path"`
			Filename string `json:"filename"`
		} `json:"downloads"`
	}
	e.okJSON(&got, "downloads", "--wait")
	if len(got.Downloads) != 1 || got.Downloads[0].State != "completed" || got.Downloads[0].Filename != "report.txt" {
		t.Fatalf("download in temp:dl: %+v", got.Downloads)
	}
	if b, err := os.ReadFile(got.Downloads[0].Path); err != nil || !strings.Contains(string(b), "quarterly report") {
		t.Fatalf("the file: %q %v", b, err)
	}
}
