// Package cookiestest writes Chrome Cookies databases for tests: the
// schema Chrome uses (the columns loupe reads), rows encrypted by the
// test itself.
package cookiestest

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Row is one cookies row: host_key, name, value, encrypted_value, path,
// expires_utc, has_expires, is_secure, is_httponly, samesite.
type Row struct {
	Host, Name, Value string
	Encrypted         []byte
	Path              string
	Expires           int64 // Chrome time (cookies.ChromeTime)
	HasExpires        bool
	Secure, HTTPOnly  bool
	SameSite          int // -1 unspecified, 0 None, 1 Lax, 2 Strict
}

// WriteDB writes a Cookies database of this meta version at path.
func WriteDB(t testing.TB, path string, version int, rows []Row) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR)`,
		`CREATE TABLE cookies(creation_utc INTEGER NOT NULL, host_key TEXT NOT NULL, top_frame_site_key TEXT NOT NULL DEFAULT '', name TEXT NOT NULL,
			value TEXT NOT NULL, encrypted_value BLOB NOT NULL, path TEXT NOT NULL, expires_utc INTEGER NOT NULL, is_secure INTEGER NOT NULL,
			is_httponly INTEGER NOT NULL, last_access_utc INTEGER NOT NULL, has_expires INTEGER NOT NULL, is_persistent INTEGER NOT NULL,
			priority INTEGER NOT NULL, samesite INTEGER NOT NULL, source_scheme INTEGER NOT NULL, source_port INTEGER NOT NULL)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO meta VALUES ('version', ?)`, version); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		enc := r.Encrypted
		if enc == nil {
			enc = []byte{}
		}
		if _, err := db.Exec(`INSERT INTO cookies (creation_utc, host_key, name, value, encrypted_value, path, expires_utc, has_expires, is_secure,
			is_httponly, samesite, last_access_utc, is_persistent, priority, source_scheme, source_port) VALUES (0,?,?,?,?,?,?,?,?,?,?,0,1,1,2,443)`,
			r.Host, r.Name, r.Value, enc, r.Path, r.Expires, r.HasExpires, r.Secure, r.HTTPOnly, r.SameSite); err != nil {
			t.Fatal(err)
		}
	}
}
