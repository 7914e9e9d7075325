package e2e

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var previewURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/p/[0-9a-f]{48}/page\.html`)

func status(t *testing.T, u string) int {
	t.Helper()
	r, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return r.StatusCode
}

// TestPreviewLocalFile: loupe preview serves a local page and the files
// beside it under a token address; reload gives it a new token (the old
// one is 404), closing the tab ends it, and MCP agents may preview only
// files of their session's files directory.
func TestPreviewLocalFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "page.html"), []byte(`<!doctype html><title>Local preview</title><link rel="stylesheet" href="site.css"><p id="p">MK-PREVIEW-1</p>
		<script>fetch('data.txt').then(r => r.text()).then(t => { document.getElementById('p').textContent += ' ' + t; });</script>`), 0o600)
	os.WriteFile(filepath.Join(dir, "site.css"), []byte("p{color:red}"), 0o600)
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("MK-BESIDE"), 0o600)
	e.ok("open", "about:blank")
	out := e.ok("preview", filepath.Join(dir, "page.html"))
	first := previewURL.FindString(out)
	if first == "" {
		t.Fatalf("preview did not open a token address:\n%s", out)
	}
	e.ok("wait", "--text", "MK-BESIDE")
	if snap := e.ok("snapshot"); !strings.Contains(snap, "MK-PREVIEW-1 MK-BESIDE") {
		t.Fatalf("the preview and the file beside it:\n%s", snap)
	}
	base := strings.TrimSuffix(first, "page.html")
	if status(t, base+"nothere.txt") != 404 || status(t, strings.Replace(first, "/p/", "/p/f", 1)) != 404 {
		t.Fatal("a missing file or another token is not 404")
	}
	// reload authorises again under a new token.
	out = e.ok("reload")
	second := previewURL.FindString(out)
	if second == "" || second == first {
		t.Fatalf("reload of a preview: %q (was %q)\n%s", second, first, out)
	}
	if status(t, first) != 404 || status(t, base+"site.css") != 404 {
		t.Fatal("the old token still serves")
	}
	if status(t, strings.TrimSuffix(second, "page.html")+"site.css") != 200 {
		t.Fatal("the new token does not serve the files beside the page")
	}
	e.ok("tab", "new")
	var tabs struct{ Tabs []struct{ ID string } }
	e.okJSON(&tabs, "tabs")
	e.ok("tab", "close", tabs.Tabs[0].ID)
	if status(t, strings.TrimSuffix(second, "page.html")+"site.css") != 404 {
		t.Fatal("the token outlived its tab")
	}
	// An agent names files of its session only.
	m := startMCP(t, e)
	r := m.call("browser_preview", map[string]any{"path": filepath.Join(dir, "page.html")})
	if code, notExecuted := errorOf(t, r); !r.isErr || code != "BAD_INPUT" || !notExecuted {
		t.Fatalf("an MCP preview of a file outside its files: %v %s", r.isErr, r.text)
	}
	files := filepath.Join(e.home, "mcp", "sessions", "mcp", "files")
	os.MkdirAll(files, 0o700)
	os.WriteFile(filepath.Join(files, "page.html"), []byte(`<title>t</title><p>MK-AGENT-PREVIEW</p>`), 0o600)
	if text := m.ok("browser_preview", map[string]any{"path": "page.html"}); !strings.Contains(text, "MK-AGENT-PREVIEW") && !previewURL.MatchString(text) {
		t.Fatalf("an MCP preview of its own file:\n%s", text)
	}
}
