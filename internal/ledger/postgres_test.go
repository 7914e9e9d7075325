package ledger

import (
	"context"
	"database/sql"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rawPG opens the PostgreSQL database of target beside the ledger.
func rawPG(t *testing.T, target string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestPostgresMigrations: an empty database is brought to the newest
// schema in one go, which a second Open leaves as it is; a database of a
// newer loupe is refused.
func TestPostgresMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := pg.Database(t)
	db := rawPG(t, target)
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil || tables != 0 {
		t.Fatalf("the new database has %d tables (%v)", tables, err)
	}
	l := openAt(t, target)
	if err := l.Reserve(ctx, Entry{ID: "op"}); err != nil {
		t.Fatal(err)
	}
	steps, err := migrations(pgSchema, "schema/pg")
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for i := range steps {
		want = append(want, i+1)
	}
	if got := schemaVersions(t, target); !slices.Equal(got, want) {
		t.Errorf("schema_version holds %v, want %v", got, want)
	}
	for _, table := range []string{"generations", "operations", "id_spaces", "schema_version"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename = $1`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: %d (%v)", table, n, err)
		}
	}
	l.Close()
	openAt(t, target).Close()
	if got := schemaVersions(t, target); !slices.Equal(got, want) {
		t.Errorf("after a second Open schema_version holds %v, want %v", got, want)
	}

	if _, err := db.Exec(`INSERT INTO schema_version (version, applied) VALUES (99, 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, target); err == nil || !strings.Contains(err.Error(), "schema version is 99") {
		t.Errorf("Open of a newer schema: %v, want a refusal naming the version", err)
	}
}

// TestPostgresSynchronousCommit: every connection of the ledger commits
// synchronously, also where the database's default, and the URL, say
// otherwise.
func TestPostgresSynchronousCommit(t *testing.T) {
	t.Parallel()
	target := pg.Database(t)
	name := target[strings.LastIndexByte(target, '/')+1 : strings.IndexByte(target, '?')]
	if _, err := rawPG(t, target).Exec(`ALTER DATABASE ` + name + ` SET synchronous_commit = off`); err != nil {
		t.Fatal(err)
	}
	var def string
	if err := rawPG(t, target).QueryRow(`SHOW synchronous_commit`).Scan(&def); err != nil || def != "off" {
		t.Fatalf("the database's default is %q (%v), want off for this test", def, err)
	}
	l := openAt(t, target+"&synchronous_commit=off")
	db := l.Store.(*sqlStore).db
	// Hold every connection of the pool at once, so each is checked.
	ctx := context.Background()
	conns := make([]*sql.Conn, pgConns)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	for i, c := range conns {
		var got string
		if err := c.QueryRowContext(ctx, `SHOW synchronous_commit`).Scan(&got); err != nil || got != "on" {
			t.Errorf("connection %d: synchronous_commit = %q (%v), want on", i, got, err)
		}
	}
}

// TestPostgresSecretsNotShown: errors name the URL with its password
// redacted, whatever went wrong.
func TestPostgresSecretsNotShown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const pw = "s3cret-MK"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	srv := pg.Server(t)
	wrong := strings.Replace(pg.URL(t), srv.Password(), pw, 1)
	for _, target := range []string{
		"postgres://loupe:" + pw + "@127.0.0.1:" + strconv.Itoa(port) + "/ledger?connect_timeout=5",
		"postgresql://loupe@127.0.0.1:" + strconv.Itoa(port) + "/ledger?password=" + pw + "&connect_timeout=5",
		"postgres://loupe:" + pw + "@127.0.0.1:" + strconv.Itoa(port) + "/ledger?sslmode=nonsense",
		"postgres://loupe:" + pw + "@[::1/ledger", // does not parse
		wrong, // the server refuses the password
	} {
		_, err := Open(ctx, target)
		if err == nil {
			t.Errorf("Open(%s) succeeded", Redact(target))
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("Open's error shows the password: %v", err)
		}
		if !strings.Contains(err.Error(), "postgres") {
			t.Errorf("Open's error does not name the ledger: %v", err)
		}
	}
}

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/me/.loupe/ledger.db", "/home/me/.loupe/ledger.db"},
		{"postgres://db.example/ledger", "postgres://db.example/ledger"},
		{"postgres://loupe@db.example/ledger", "postgres://loupe@db.example/ledger"},
		{"postgres://loupe:pw@db.example:5433/ledger?sslmode=require", "postgres://loupe:xxxxx@db.example:5433/ledger?sslmode=require"},
		{"postgresql://loupe@db.example/ledger?password=pw&sslpassword=pw2", "postgresql://loupe@db.example/ledger?password=xxxxx&sslpassword=xxxxx"},
		{"postgres://loupe:pw@[::1/ledger", "postgres://(a URL that does not parse)"},
	} {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsPostgres(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/db": true, "postgresql://h/db": true, "/var/lib/loupe/ledger.db": false,
		"ledger.db": false, "postgres": false, "file:postgres://x": false,
	} {
		if IsPostgres(in) != want {
			t.Errorf("IsPostgres(%q) = %v", in, !want)
		}
	}
}
