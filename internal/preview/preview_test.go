package preview

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// shows is a fake of what each tab shows.
type shows struct {
	mu  sync.Mutex
	url map[string]string
}

func (s *shows) set(tab, u string) { s.mu.Lock(); s.url[tab] = u; s.mu.Unlock() }
func (s *shows) of(tab string) func(prefix string) bool {
	return func(prefix string) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return strings.HasPrefix(s.url[tab], prefix)
	}
}

// loopback is a client that connects every request to loopback, as the
// browser does for every name under localhost.
var loopback = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, _ := net.SplitHostPort(addr)
	var d net.Dialer
	return d.DialContext(ctx, network, "127.0.0.1:"+port)
}}}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	r, err := loopback.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

func TestPreviewLifecycle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("page.html", "<p>hello</p>")
	write("css/site.css", "p{}")
	write(".secret", "no")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("outside"), 0o600)
	os.Symlink(outside, filepath.Join(dir, "link.txt"))
	sh := &shows{url: map[string]string{}}
	s := New()
	defer s.Close()
	u, err := s.Allow(filepath.Join(dir, "page.html"), "T1", "task-a", sh.of("T1"))
	if err != nil {
		t.Fatal(err)
	}
	// The page itself is served to the navigation that opens it.
	if code, body := get(t, u); code != 200 || body != "<p>hello</p>" {
		t.Fatalf("the page: %d %q", code, body)
	}
	sh.set("T1", u)
	base := strings.TrimSuffix(u, "page.html")
	if code, _ := get(t, base+"css/site.css"); code != 200 {
		t.Fatalf("a file beside it: %d", code)
	}
	tok, port, _ := strings.Cut(strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http://"), ".localhost:")
	for _, bad := range []string{base + ".secret", base + "link.txt", base + "css", base + "../" + filepath.Base(outside), base + "css/../../x", base,
		strings.Replace(u, tok, otherHex(tok[:1])+tok[1:], 1), // another token
		"http://127.0.0.1:" + port + "/page.html", "http://" + tok + ".localhost.evil.example:" + port + "/page.html", "http://x." + tok + ".localhost:" + port + "/page.html",
	} {
		if code, _ := get(t, bad); code != 404 {
			t.Errorf("%s: %d, want 404", bad, code)
		}
	}
	// Previewed again: a new token, the old one 404.
	u2, err := s.Allow(filepath.Join(dir, "page.html"), "T1", "task-a", sh.of("T1"))
	if err != nil || u2 == u {
		t.Fatalf("again: %q %v", u2, err)
	}
	sh.set("T1", u2)
	if code, _ := get(t, u); code != 404 {
		t.Fatalf("the replaced token: %d", code)
	}
	if code, _ := get(t, u2); code != 200 {
		t.Fatalf("the new token: %d", code)
	}
	// The tab navigates away: its grant ends at the next request, for
	// the file itself too (it was served once, to the tab's navigation).
	sh.set("T1", "https://example.com/")
	if code, _ := get(t, u2); code != 404 {
		t.Fatalf("the file after the tab moved on: %d", code)
	}
	if code, _ := get(t, strings.TrimSuffix(u2, "page.html")+"css/site.css"); code != 404 {
		t.Fatalf("after the tab moved on: %d", code)
	}
	if _, ok := s.Of("T1"); ok {
		t.Fatal("the grant outlived its tab's navigation")
	}
	// Release (a tab closed) and EndTask end grants too.
	u3, _ := s.Allow(filepath.Join(dir, "page.html"), "T2", "task-b", sh.of("T2"))
	s.Release("T2")
	if code, _ := get(t, u3); code != 404 {
		t.Fatalf("after the tab closed: %d", code)
	}
	u4, _ := s.Allow(filepath.Join(dir, "page.html"), "T3", "task-c", sh.of("T3"))
	s.EndTask("task-c")
	if code, _ := get(t, u4); code != 404 {
		t.Fatalf("after the task ended: %d", code)
	}
	// Only .html and .htm files, existing, not through a symlink.
	for _, f := range []string{filepath.Join(dir, "css/site.css"), filepath.Join(dir, "none.html"), filepath.Join(dir, "link.txt")} {
		if _, err := s.Allow(f, "T4", "x", sh.of("T4")); err == nil {
			t.Errorf("%s was allowed", f)
		}
	}
}

// otherHex is a hex digit other than d: a token that differs from a real
// one in its first digit (a fixed "0" equals it one time in sixteen).
func otherHex(d string) string {
	if d == "0" {
		return "1"
	}
	return "0"
}

// The page's own requests may reach the server before loupe has heard that
// the tab shows the page (its commit event is still on the way): they are
// served. Once the tab was seen showing it, a tab that shows something
// else ends the grant.
func TestPreviewBeforeTheTabCatchesUp(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "page.html"), []byte("<p>hi</p>"), 0o600)
	os.WriteFile(filepath.Join(dir, "site.css"), []byte("p{}"), 0o600)
	sh := &shows{url: map[string]string{}}
	s := New()
	defer s.Close()
	u, err := s.Allow(filepath.Join(dir, "page.html"), "T1", "task-a", sh.of("T1"))
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(u, "page.html")
	if code, _ := get(t, u); code != 200 {
		t.Fatalf("the page: %d", code)
	}
	// The tab still shows what it showed before (about:blank).
	sh.set("T1", "about:blank")
	if code, _ := get(t, base+"site.css"); code != 200 {
		t.Fatalf("the page's stylesheet before the tab caught up: %d", code)
	}
	sh.set("T1", u)
	if code, _ := get(t, base+"site.css"); code != 200 {
		t.Fatalf("the stylesheet while the tab shows the page: %d", code)
	}
	sh.set("T1", "https://elsewhere.example/")
	if code, _ := get(t, base+"site.css"); code != 404 {
		t.Fatalf("after the tab moved on: %d", code)
	}
	sh.set("T1", u)
	if code, _ := get(t, base+"site.css"); code != 404 {
		t.Fatalf("the grant did not end when the tab moved on: %d", code)
	}
}
