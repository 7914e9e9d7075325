package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestSettingsControlEnabled: with control off, every browser write from
// the CLI is refused (DENIED, not executed) with the command that turns it
// back on, reads still work, the settings command itself still does, and
// a new MCP session has no browser tools.
func TestSettingsControlEnabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	if out := e.ok("settings"); !strings.Contains(out, "controlEnabled true") || !strings.Contains(out, "ignoreCertificateErrors false") {
		t.Fatalf("default settings:\n%s", out)
	}
	e.ok("settings", "set", "controlEnabled", "false")
	r := e.run("open", srv.Page("form.html"))
	if r.code == 0 || !strings.Contains(r.stderr, "DENIED") || !strings.Contains(r.stderr, "loupe settings set controlEnabled true") {
		t.Fatalf("a write with control off: exit %d\n%s", r.code, r.stderr)
	}
	if out := e.run("--json", "press", "Tab"); !strings.Contains(out.stdout+out.stderr, `"not_executed":true`) {
		t.Fatalf("the refusal is not marked not executed:\n%s%s", out.stdout, out.stderr)
	}
	if snap := e.ok("snapshot"); !strings.Contains(snap, "basic") {
		t.Fatalf("a read with control off:\n%s", snap)
	}
	// A new MCP session lists no tools.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := e.command("mcp")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "settings-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	cs.Close()
	if err != nil || len(tools.Tools) != 0 {
		t.Fatalf("an MCP session with control off lists %v (%v)", tools, err)
	}
	e.ok("settings", "set", "controlEnabled", "true")
	e.ok("open", srv.Page("form.html"))
	// Bad input is a usage error that changes nothing.
	for _, args := range [][]string{{"settings", "set", "controlenabled", "true"}, {"settings", "set", "controlEnabled", "yes"}, {"settings", "set", "theme", "dark"}} {
		if r := e.run(args...); r.code != 2 {
			t.Errorf("loupe %v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	b, err := os.ReadFile(filepath.Join(e.home, "settings.json"))
	if err != nil || !strings.Contains(string(b), `"controlEnabled": true`) {
		t.Fatalf("settings.json: %s %v", b, err)
	}
}

// TestSettingsIgnoreCertificateErrorsLive: a page with a self-signed
// certificate fails to load until ignoreCertificateErrors is set, then
// loads in the running browser — in a temp partition too — without a
// restart.
func TestSettingsIgnoreCertificateErrorsLive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>self-signed</title><p>MK-TLS-OK</p>")
	}))
	defer tls.Close()
	e.ok("open", "about:blank")
	if r := e.run("open", tls.URL); r.code == 0 {
		t.Fatalf("a self-signed page loaded with certificate checks on:\n%s", r.stdout)
	}
	e.ok("settings", "set", "ignoreCertificateErrors", "true")
	e.ok("open", tls.URL)
	if snap := e.ok("snapshot"); !strings.Contains(snap, "MK-TLS-OK") {
		t.Fatalf("after the setting, the page:\n%s", snap)
	}
	e.ok("open", tls.URL, "--partition", "temp:tls")
	if snap := e.ok("snapshot"); !strings.Contains(snap, "MK-TLS-OK") {
		t.Fatalf("in a temp partition:\n%s", snap)
	}
}

// TestSettingsClearCacheThenAllData: from the CLI, clear-cache keeps the
// session's cookies and local storage (and a temp tab's), clear-data
// takes them from every site of the shared partition and leaves the temp
// partition alone.
func TestSettingsClearCacheThenAllData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	one, two := testpages.Start(t, "127.0.0.1"), testpages.Start(t, "127.0.0.2")
	set := `(document.cookie = 'k=v; path=/', localStorage.setItem('k', 'v'), 'set')`
	read := `document.cookie + '|' + (localStorage.getItem('k') || '')`
	e.ok("open", two.Page("basic.html"))
	e.ok("eval", set)
	e.ok("open", one.Page("basic.html"), "--partition", "temp:keep")
	e.ok("eval", set)
	e.ok("tab", "new", one.Page("basic.html"))
	e.ok("eval", set)

	out := e.ok("settings", "clear-cache")
	if !strings.Contains(out, "cleared the HTTP cache") || !strings.Contains(out, "kept cookies") {
		t.Fatalf("clear-cache said:\n%s", out)
	}
	if got := e.ok("eval", read); !strings.Contains(got, "k=v|v") {
		t.Fatalf("clear-cache took cookies or storage: %s", got)
	}
	var cleared struct{ Session, Cleared string }
	e.okJSON(&cleared, "settings", "clear-data")
	if cleared.Session != "default" || !strings.Contains(cleared.Cleared, "all data") {
		t.Fatalf("clear-data said %+v", cleared)
	}
	var tabs struct {
		Tabs []struct{ ID, Partition string }
	}
	e.okJSON(&tabs, "tabs")
	for _, tb := range tabs.Tabs {
		e.ok("tab", "activate", tb.ID)
		got := e.ok("eval", read)
		if tb.Partition == "persist" && !strings.Contains(got, `"|"`) {
			t.Errorf("after clear-data the shared tab %s still reads %s", tb.ID, got)
		}
		if tb.Partition != "persist" && !strings.Contains(got, "k=v|v") {
			t.Errorf("clear-data touched the temp tab %s: %s", tb.ID, got)
		}
	}
}
