package pgtest

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
)

var pg Shared

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// TestNamespaces: each schema, and each database, is new and empty, on a
// server that runs with fsync on and asks for the password its URLs
// carry.
func TestNamespaces(t *testing.T) {
	ctx := context.Background()
	srv := pg.Server(t)
	seen := map[string]bool{}
	for i := range 3 {
		u := pg.URL(t)
		if i == 2 {
			u = pg.Database(t)
		}
		if seen[u] {
			t.Fatalf("database %s handed out twice", u)
		}
		seen[u] = true
		db, err := sql.Open("pgx", u)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var tables int
		if _, err := db.ExecContext(ctx, `CREATE TABLE here (n int)`); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if tables != 1 {
			t.Errorf("a new schema has %d tables after one was made, want 1", tables)
		}
		var fsync string
		if err := db.QueryRowContext(ctx, `SHOW fsync`).Scan(&fsync); err != nil || fsync != "on" {
			t.Errorf("fsync = %q (%v), want on", fsync, err)
		}
	}
	wrong := strings.Replace(srv.URL("postgres"), srv.Password(), "wrong", 1)
	db, err := sql.Open("pgx", wrong)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.PingContext(ctx); err == nil || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("a wrong password: %v, want an authentication failure", err)
	}
}
