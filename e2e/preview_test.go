package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var previewURL = regexp.MustCompile(`http://[0-9a-f]{48}\.localhost:\d+/page\.html`)

// loopback connects every request to loopback, as the browser does for
// every name under localhost.
var loopback = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, _ := net.SplitHostPort(addr)
	var d net.Dialer
	return d.DialContext(ctx, network, "127.0.0.1:"+port)
}}}

func status(t *testing.T, u string) int {
	t.Helper()
	r, err := loopback.Get(u)
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
		<script>fetch('data.txt').then(r => r.text()).then(t => { document.getElementById('p').textContent += ' ' + t; });</script>
		<script src="/assets/app.js"></script><a href="/child.html">Child</a>`), 0o600)
	os.WriteFile(filepath.Join(dir, "site.css"), []byte("p{color:red}"), 0o600)
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("MK-BESIDE"), 0o600)
	// Root-relative links resolve: the file's directory is the site's root.
	os.MkdirAll(filepath.Join(dir, "assets"), 0o700)
	os.WriteFile(filepath.Join(dir, "assets", "app.js"), []byte(`document.title += " MK-ROOT-SCRIPT";`), 0o600)
	os.WriteFile(filepath.Join(dir, "child.html"), []byte(`<title>Child</title><p>MK-ROOT-CHILD</p>`), 0o600)
	e.ok("open", "about:blank")
	out := e.ok("preview", filepath.Join(dir, "page.html"))
	first := previewURL.FindString(out)
	if first == "" {
		t.Fatalf("preview did not open a token address:\n%s", out)
	}
	e.ok("wait", "--text", "MK-BESIDE")
	if snap := e.ok("snapshot"); !strings.Contains(snap, "MK-PREVIEW-1 MK-BESIDE") || !strings.Contains(snap, "MK-ROOT-SCRIPT") {
		t.Fatalf("the preview, the file beside it and its root-relative script:\n%s", snap)
	}
	e.ok("click", `role=link[name="Child"]`)
	e.ok("wait", "--text", "MK-ROOT-CHILD")
	e.ok("back")
	e.ok("wait", "--text", "MK-BESIDE")
	base := strings.TrimSuffix(first, "page.html")
	other := "http://" + strings.Repeat("f", 48) + first[len("http://")+48:]
	if status(t, base+"nothere.txt") != 404 || status(t, other) != 404 {
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
