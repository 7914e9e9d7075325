package system

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/pgtest"
)

var pg pgtest.Shared

func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }

// TestPostgresLedger: two homes (two daemons' systems) on one PostgreSQL
// ledger share its ids and keep no SQLite file; the log names the ledger
// without its password.
func TestPostgresLedger(t *testing.T) {
	ctx := context.Background()
	url := pg.URL(t)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	open := func() (*System, string) {
		home := t.TempDir()
		sys, err := Open(ctx, Config{Home: home, Ledger: url, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sys.Close(context.Background()) })
		return sys, home
	}
	a, homeA := open()
	b, _ := open()
	if _, err := os.Stat(homedir.LedgerPath(homeA)); err == nil {
		t.Error("a home with a PostgreSQL ledger has a SQLite one too")
	}
	if err := a.store.Reserve(ctx, ledger.Entry{ID: "shared"}); err != nil {
		t.Fatal(err)
	}
	var dup *ledger.DuplicateError
	if err := b.store.Reserve(ctx, ledger.Entry{ID: "shared"}); !errors.As(err, &dup) {
		t.Errorf("the second home reusing the first's id: %v, want a duplicate", err)
	}
	pw := pg.Server(t).Password()
	if !strings.Contains(logs.String(), "operation ledger on PostgreSQL") || !strings.Contains(logs.String(), "xxxxx@127.0.0.1") {
		t.Errorf("the log does not name the ledger: %s", logs.String())
	}
	if strings.Contains(logs.String(), pw) {
		t.Errorf("the log shows the password: %s", logs.String())
	}
}

// TestLedgerNotAURL: a ledger that is not a PostgreSQL URL is refused,
// and not echoed (it may hold a password).
func TestLedgerNotAURL(t *testing.T) {
	_, err := Open(context.Background(), Config{Home: t.TempDir(), Ledger: "postgre://me:MK-PW@db/x", Log: quiet})
	if err == nil || strings.Contains(err.Error(), "MK-PW") || !strings.Contains(err.Error(), "postgres://") {
		t.Errorf("a ledger that is not a URL: %v", err)
	}
}
