package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestStorageState: a signed-in tab's cookies and local storage, saved
// from the CLI to a file of Playwright's shape (0600, never overwritten),
// load into a fresh temp partition, where a page sees them; MCP saves and
// loads through the session's files; the ledger keeps no cookie.
func TestStorageState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	e.ok("eval", `document.cookie = "sid=MK-SID; max-age=3600"; localStorage.setItem("token", "MK-TOKEN"); 1`)
	file := filepath.Join(t.TempDir(), "state.json")
	if out := e.ok("state", "save", file); !strings.Contains(out, "saved 1 cookies and the storage of 1 origins") {
		t.Fatalf("state save: %s", out)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Cookies []struct{ Name, Value, SameSite string } `json:"cookies"`
		Origins []struct {
			Origin       string                         `json:"origin"`
			LocalStorage []struct{ Name, Value string } `json:"localStorage"`
		} `json:"origins"`
	}
	if err := json.Unmarshal(raw, &st); err != nil || len(st.Cookies) != 1 || st.Cookies[0].Value != "MK-SID" || len(st.Origins) != 1 || st.Origins[0].LocalStorage[0].Value != "MK-TOKEN" {
		t.Fatalf("the file: %v\n%s", err, raw)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %v, want 0600", fi.Mode().Perm())
	}
	if out := e.ok("state", "save", file); !strings.Contains(out, "state (1).json") {
		t.Errorf("a second save overwrote the file: %s", out)
	}

	e.ok("open", "--new-tab", "--partition", "temp:signed-in", "about:blank")
	e.ok("--op-id", "load-1", "state", "load", file)
	e.ok("open", srv.Page("basic.html"))
	if got := e.ok("eval", `document.cookie + " " + localStorage.getItem("token")`); !strings.Contains(got, "sid=MK-SID MK-TOKEN") {
		t.Fatalf("the temp partition after the load: %s", got)
	}
	if show := e.ok("ops", "show", "load-1"); strings.Contains(show, "MK-SID") {
		t.Errorf("the ledger keeps the loaded cookies:\n%s", show)
	}

	m := startMCP(t, e, "--daemon")
	if text := m.ok("browser_storage_state", map[string]any{"action": "save", "path": "agent-state.json"}); !strings.Contains(text, "agent-state.json") {
		t.Fatalf("MCP save: %s", text)
	}
	m.ok("browser_tabs", map[string]any{"action": "new", "partition": "temp:agent"})
	if text := m.ok("browser_storage_state", map[string]any{"action": "load", "path": "agent-state.json"}); !strings.Contains(text, "loaded 1 cookies") {
		t.Fatalf("MCP load: %s", text)
	}
}
