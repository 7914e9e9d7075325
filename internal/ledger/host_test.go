package ledger

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocalHost: LOUPE_HOST is the identity when set; otherwise the host
// name (and the machine id, where there is one).
func TestLocalHost(t *testing.T) {
	t.Setenv(HostEnv, "  rack-7  ")
	if got := LocalHost(); got != "rack-7" {
		t.Errorf("with %s set: %q", HostEnv, got)
	}
	t.Setenv(HostEnv, "")
	name, _ := os.Hostname()
	got := LocalHost()
	if !strings.HasPrefix(got, name) {
		t.Errorf("LocalHost() = %q, want it to start with the host name %q", got, name)
	}
	if id := machineID(); id != "" && got != name+"/"+id {
		t.Errorf("LocalHost() = %q, want %q", got, name+"/"+id)
	}
}

// TestSQLiteHostMigration: a file of schema version 4 gains the host
// column; its rows have none, the new generation's is this host's.
func TestSQLiteHostMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	steps, err := migrations(sqliteSchema, "schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range steps[:4] {
		rawExec(t, path, step)
	}
	rawExec(t, path, `PRAGMA user_version = 4`)
	rawExec(t, path, `INSERT INTO generations (pid, start_ticks, boot_id, opened, closed) VALUES (1, 1, 'b', 1, 2)`)
	rawExec(t, path, `INSERT INTO operations (id, session, task, client, generation, surface, epoch, document, op, action, digest, state, code, reason, reserved)
		VALUES ('old', 's', '', '', 1, '', 0, '', 'click', 'click', 'd', 'executed', '', '', 1)`)
	l := openAt(t, path)
	if e, err := l.Get(ctx, "old"); err != nil || e.Host != "" || e.State != "executed" {
		t.Errorf("a row from before: %+v (%v), want no host", e, err)
	}
	if err := l.Reserve(ctx, Entry{ID: "new"}); err != nil {
		t.Fatal(err)
	}
	if e, _ := l.Get(ctx, "new"); e.Host != LocalHost() || e.Host == "" {
		t.Errorf("a new row's host: %q, want %q", e.Host, LocalHost())
	}
}
