package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestCookiesFile: import-cookies finds the Cookies database of the
// profile it names, on the daemon's side; a profile without one is
// BAD_INPUT, not executed, saying so.
func TestCookiesFile(t *testing.T) {
	profile := t.TempDir()
	in := &ops.ImportCookiesIn{Profile: profile}
	err := cookiesFile(in)
	if e, ok := apitype.As(err); !ok || e.Code != apitype.BadInput || !e.NotExecuted || !strings.Contains(e.Message, "no Cookies database") {
		t.Fatalf("a profile without cookies: %v", err)
	}
	db := filepath.Join(profile, "Network", "Cookies")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := cookiesFile(in); err != nil || in.Profile != db {
		t.Fatalf("found %q, %v; want %q", in.Profile, err, db)
	}
	// The database itself names itself.
	if err := cookiesFile(in); err != nil || in.Profile != db {
		t.Fatalf("the database: %q, %v", in.Profile, err)
	}
	if err := Table()["import-cookies"].Check(&ops.ImportCookiesIn{Profile: t.TempDir()}); err == nil {
		t.Fatal("the import-cookies handler checks no profile")
	}
}
