package cookies_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/cookies"
	"github.com/loupe-dev/loupe/internal/cookies/cookiestest"
)

func TestReadDecryptsAndCountsWhatItSkips(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	later, earlier := cookies.ChromeTime(now.Add(24*time.Hour)), cookies.ChromeTime(now.Add(-time.Hour))
	for _, version := range []int{23, 24} {
		enc := func(prefix, password, value, host string) []byte {
			return cookies.Encrypt(value, host, version, prefix, password, 1)
		}
		p := filepath.Join(t.TempDir(), "Cookies")
		cookiestest.WriteDB(t, p, version, []cookiestest.Row{
			{Host: ".example.test", Name: "sid", Encrypted: enc("v10", "peanuts", "s3cr3t-v10", ".example.test"), Path: "/", Expires: later, HasExpires: true, Secure: true, HTTPOnly: true, SameSite: 1},
			{Host: "app.example.test", Name: "pref", Value: "dark", Path: "/app", SameSite: -1},
			{Host: ".example.test", Name: "keyring", Encrypted: enc("v11", "from-the-keyring", "k", ".example.test"), Path: "/", Expires: later, HasExpires: true, Secure: true, SameSite: 2},
			{Host: ".example.test", Name: "bound", Encrypted: append([]byte("v20"), make([]byte, 32)...), Path: "/", Expires: later, HasExpires: true},
			{Host: ".example.test", Name: "old", Encrypted: enc("v10", "peanuts", "gone", ".example.test"), Path: "/", Expires: earlier, HasExpires: true},
			{Host: ".example.test", Name: "wrongkey", Encrypted: enc("v10", "not-peanuts", "x", ".example.test"), Path: "/", Expires: later, HasExpires: true},
		})
		r, err := cookies.Read(context.Background(), p, cookies.Keys{V10: "peanuts", Iterations: 1}, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Cookies) != 2 || r.Expired != 1 || r.AppBound != 1 || r.Undecryptable != 2 {
			t.Fatalf("version %d: %d cookies, skipped %d expired, %d app-bound, %d undecryptable", version, len(r.Cookies), r.Expired, r.AppBound, r.Undecryptable)
		}
		sid, pref := r.Cookies[0], r.Cookies[1]
		if sid.Value != "s3cr3t-v10" || !sid.Secure || !sid.HTTPOnly || sid.SameSite != "Lax" || sid.Expires.IsZero() || sid.Domain != ".example.test" {
			t.Errorf("version %d: the v10 cookie: %+v", version, sid)
		}
		if pref.Value != "dark" || pref.Path != "/app" || !pref.Expires.IsZero() || pref.SameSite != "" {
			t.Errorf("version %d: the plain session cookie: %+v", version, pref)
		}
		// With the keyring's password, the v11 row reads too.
		r, err = cookies.Read(context.Background(), p, cookies.Keys{V10: "peanuts", V11: "from-the-keyring", Iterations: 1}, now)
		if err != nil || len(r.Cookies) != 3 || r.Cookies[2].Value != "k" || r.Cookies[2].SameSite != "Strict" {
			t.Fatalf("version %d with the keyring: %+v %v", version, r, err)
		}
	}
}

func TestDecryptRefusesOtherDomainsAndJunk(t *testing.T) {
	enc := cookies.Encrypt("v", "a.test", 24, "v10", "peanuts", 1)
	if _, err := cookies.Decrypt(enc, "b.test", 24, cookies.Keys{V10: "peanuts"}); err == nil {
		t.Fatal("a value bound to another domain decrypted")
	}
	for _, junk := range [][]byte{[]byte("v10"), []byte("v10abc"), []byte("xyz0123456789abcdef"), nil} {
		if _, err := cookies.Decrypt(junk, "a.test", 24, cookies.Keys{V10: "peanuts"}); err == nil {
			t.Errorf("%q decrypted", junk)
		}
	}
}

func TestNotACookiesDatabase(t *testing.T) {
	p := filepath.Join(t.TempDir(), "Cookies")
	db, _ := sql.Open("sqlite", "file:"+p)
	db.Exec(`CREATE TABLE other(x)`)
	db.Close()
	if _, err := cookies.Read(context.Background(), p, cookies.Keys{V10: "peanuts"}, time.Now()); err == nil {
		t.Fatal("a database without cookies was read")
	}
}

// TestFindProfile: the newest profile's Cookies database, Chrome's or
// Chromium's, in the new place (Network/Cookies) or the old.
func TestFindProfile(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	if _, err := cookies.FindProfile(); err == nil {
		t.Fatal("found a profile where there is none")
	}
	old := filepath.Join(cfg, "google-chrome", "Default", "Cookies")
	newer := filepath.Join(cfg, "chromium", "Profile 1", "Network", "Cookies")
	for i, p := range []string{old, newer} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(time.Duration(i-2) * time.Hour)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := cookies.FindProfile(); err != nil || got != newer {
		t.Fatalf("FindProfile = %q, %v; want %q", got, err, newer)
	}
	if got, err := cookies.CookiesFile(filepath.Join(cfg, "google-chrome", "Default")); err != nil || got != old {
		t.Fatalf("CookiesFile of a profile dir = %q, %v", got, err)
	}
	if _, err := cookies.CookiesFile(cfg); err == nil {
		t.Fatal("a directory without Cookies was taken for a profile")
	}
}
