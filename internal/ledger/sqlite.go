package ledger

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Durability. The ledger is in WAL mode with synchronous=FULL: a commit
// returns once its frames are in the write-ahead log and the log has been
// fsynced, so a reserved row survives the death of the process (kill -9)
// and also a crash of the machine or a power cut right after Reserve
// returns. synchronous=NORMAL would be enough for process death — the
// committed frames are then in the OS page cache, which outlives the
// process — but after a machine crash the last commits could be lost, and
// a reservation lost that way frees an id whose write may have gone out
// (a sent message, a submitted form) and hides the write from the person.
// FULL costs one fsync of the log per commit, two per write: on the
// development machine (ext4 on a virtual disk) a Reserve and Settle pair
// takes 0.26-0.30 ms at the median with FULL and 0.06 ms with NORMAL, well
// inside the 2 ms budget (BenchmarkReserveSettle). A slow disk makes
// every write that much slower; NORMAL is the fallback should it matter.
// Checkpoints, which fold the log back into the database file, run on
// commit every 1000 pages (SQLite's default) and make the occasional
// write slower, not the median.
const synchronous = "FULL"

// busyTimeout is how long a statement waits for another process holding
// the write lock (a daemon and in-process `loupe mcp` servers share one
// file). A write holds it for well under a millisecond.
const busyTimeout = 5 * time.Second

//go:embed schema/*.sql
var sqliteSchema embed.FS

// openSQLite opens the SQLite ledger at path. One database connection
// does every read and write of this process: SQLite admits one writer at
// a time anyway, and database/sql hands the connection from one goroutine
// to the next without the sleeps of SQLite's busy handler. Reads queue
// behind writes; each takes well under a millisecond.
func openSQLite(ctx context.Context, path, host string) (*sqlStore, error) {
	if path == "" {
		return nil, errors.New("ledger: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if err := prepareFile(abs); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("ledger: open %s: %w", abs, err)
	}
	db.SetMaxOpenConns(1)
	l := &sqlStore{db: db, d: sqliteDialect, self: selfProc(), host: host, where: abs}
	if err := l.startSQLite(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("ledger: open %s: %w", abs, err)
	}
	return l, nil
}

// prepareFile checks that the ledger's directory exists and creates the
// file readable by its owner only (SQLite gives its -wal and -shm files
// the same mode).
func prepareFile(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("ledger: cannot open %s: its directory does not exist: %w", path, err)
	case err != nil:
		return fmt.Errorf("ledger: cannot open %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("ledger: cannot open %s: %s is not a directory", path, dir)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("ledger: cannot open %s: %w", path, err)
	}
	return f.Close()
}

// dsn is the driver's name for the file at path with the ledger's
// connection settings. As a file: URI the path may hold any character.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busyTimeout.Milliseconds(), 10)+")")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+synchronous+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate") // a transaction takes the write lock at BEGIN, waiting under busy_timeout
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	return u.String()
}

// startSQLite checks the journal mode, brings the schema up to date and
// begins this generation.
func (l *sqlStore) startSQLite(ctx context.Context) error {
	var mode string
	if err := l.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not WAL (is the file on a file system without shared memory?)", mode)
	}
	if err := migrateSQLite(ctx, l.db); err != nil {
		return err
	}
	return l.begin(ctx)
}

// migrateSQLite brings the schema to the newest version this loupe knows:
// schema/NNN_*.sql is version NNN, PRAGMA user_version the file's.
func migrateSQLite(ctx context.Context, db *sql.DB) error {
	steps, err := migrations(sqliteSchema, "schema")
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > len(steps) {
		return fmt.Errorf("its schema version is %d, newer than this loupe knows (%d): use a newer loupe", v, len(steps))
	}
	if v == len(steps) {
		return nil
	}
	for i := v; i < len(steps); i++ {
		if _, err := tx.ExecContext(ctx, steps[i]); err != nil {
			return fmt.Errorf("schema version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(steps))); err != nil {
		return err
	}
	return tx.Commit()
}

// migrations reads the schema steps in dir of files, in order; their
// numbers must run 1, 2, 3… without gaps.
func migrations(files fs.FS, dir string) ([]string, error) {
	names, err := fs.Glob(files, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	steps := make([]string, len(names))
	for _, name := range names {
		n, _, _ := strings.Cut(filepath.Base(name), "_")
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 || v > len(names) || steps[v-1] != "" {
			return nil, fmt.Errorf("ledger: schema file %s is not numbered in sequence", name)
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		steps[v-1] = string(b)
	}
	return steps, nil
}
