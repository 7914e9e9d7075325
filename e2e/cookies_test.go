package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/cookies"
	"github.com/loupe-dev/loupe/internal/cookies/cookiestest"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestImportCookies: a Cookies database the test made and encrypted as
// Chrome does on Linux is imported into the session's profile: its usable
// cookie reaches the pages of its site (and no temp partition), and the
// expired and App-Bound rows are counted as skipped.
func TestImportCookies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	profile := filepath.Join(t.TempDir(), "Default")
	if err := os.MkdirAll(filepath.Join(profile, "Network"), 0o700); err != nil {
		t.Fatal(err)
	}
	later, earlier := cookies.ChromeTime(time.Now().Add(24*time.Hour)), cookies.ChromeTime(time.Now().Add(-time.Hour))
	cookiestest.WriteDB(t, filepath.Join(profile, "Network", "Cookies"), 24, []cookiestest.Row{
		{Host: "127.0.0.1", Name: "signed_in", Encrypted: cookies.Encrypt("yes-7f3b", "127.0.0.1", 24, "v10", "peanuts", 1), Path: "/", Expires: later, HasExpires: true, SameSite: 1},
		{Host: "127.0.0.1", Name: "stale", Encrypted: cookies.Encrypt("old", "127.0.0.1", 24, "v10", "peanuts", 1), Path: "/", Expires: earlier, HasExpires: true},
		{Host: "127.0.0.1", Name: "bound", Encrypted: append([]byte("v20"), make([]byte, 48)...), Path: "/", Expires: later, HasExpires: true},
	})
	out := e.ok("import-cookies", "--profile", profile)
	if !strings.Contains(out, "imported 1 cookies") || !strings.Contains(out, "1 expired, 1 app-bound") {
		t.Fatalf("import-cookies:\n%s", out)
	}
	e.ok("open", srv.Page("basic.html"))
	if got := e.ok("eval", "document.cookie"); !strings.Contains(got, "signed_in=yes-7f3b") || strings.Contains(got, "stale") {
		t.Fatalf("the page's cookies after the import: %q", got)
	}
	e.ok("open", srv.Page("basic.html"), "--partition", "temp:clean")
	if got := e.ok("eval", "document.cookie"); strings.Contains(got, "signed_in") {
		t.Fatalf("a temp partition reads the imported cookie: %q", got)
	}
	// The daemon looks for the profile's database (the CLI links none of
	// the cookie reader): a refusal of the daemon's, not a usage error.
	if r := e.run("import-cookies", "--profile", t.TempDir()); r.code != 1 || !strings.Contains(r.stderr, "BAD_INPUT: ") || !strings.Contains(r.stderr, "no Cookies database") {
		t.Fatalf("a profile without cookies: exit %d\n%s", r.code, r.stderr)
	}
}
