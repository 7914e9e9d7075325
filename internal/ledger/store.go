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
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/loupe-dev/loupe/internal/wire"
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
var schemaFiles embed.FS

// impl is the Ledger. One database connection does every read and write
// of this process: SQLite admits one writer at a time anyway, and
// database/sql hands the connection from one goroutine to the next
// without the sleeps of SQLite's busy handler. Reads queue behind writes;
// each takes well under a millisecond.
type impl struct {
	db        *sql.DB
	self      proc
	gen       int64
	recovered int

	// mu guards closed. Every call holds it for reading while it uses db;
	// Close holds it for writing, so it waits for the calls in flight and
	// none starts after it.
	mu     sync.RWMutex
	closed bool
}

// Generation is this Open's generation, greater than that of every
// earlier Open of the same file, whichever process did it.
func (l *impl) Generation() int64 { return l.gen }

// Recovered is how many reserved entries of stopped processes Open made
// unknown.
func (l *impl) Recovered() int { return l.recovered }

func open(ctx context.Context, path string) (*Ledger, error) {
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
	l := &Ledger{impl{db: db, self: selfProc()}}
	if err := l.start(ctx); err != nil {
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

// start checks the journal mode, brings the schema up to date and begins
// this generation, recovering what stopped processes left reserved.
func (l *impl) start(ctx context.Context) error {
	var mode string
	if err := l.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not WAL (is the file on a file system without shared memory?)", mode)
	}
	if err := migrate(ctx, l.db); err != nil {
		return err
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	res, err := tx.ExecContext(ctx, `INSERT INTO generations (pid, start_ticks, boot_id, opened) VALUES (?, ?, ?, ?)`,
		l.self.pid, l.self.start, l.self.boot, now)
	if err != nil {
		return err
	}
	if l.gen, err = res.LastInsertId(); err != nil {
		return err
	}
	if l.recovered, err = recoverStopped(ctx, tx, l.self, l.gen, now); err != nil {
		return err
	}
	return tx.Commit()
}

// migrate brings the schema to the newest version this loupe knows:
// schema/NNN_*.sql is version NNN, PRAGMA user_version the file's.
func migrate(ctx context.Context, db *sql.DB) error {
	steps, err := migrations()
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

// migrations reads the schema steps in order; their numbers must run
// 1, 2, 3… without gaps.
func migrations() ([]string, error) {
	names, err := fs.Glob(schemaFiles, "schema/*.sql")
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
		b, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		steps[v-1] = string(b)
	}
	return steps, nil
}

const entryColumns = `id, session, task, client, generation, surface, epoch, document, op, action, digest,
	state, code, reason, reserved, settled, input, locator`

// readColumns are what a read scans: the columns a reservation writes,
// and a person's acknowledgement.
const readColumns = entryColumns + `, acknowledged`

// MaxInput bounds the input a row keeps: a larger one (an upload's files)
// is not kept.
const MaxInput = 4 << 10

func keptInput(in string) string {
	if len(in) > MaxInput {
		return ""
	}
	return in
}

// Reserve records e as reserved by this generation, before its write is
// dispatched; it returns once the row is durable on disk (see the
// package doc). It sets e's Generation, State and Reserved and clears its
// outcome. An id used before, in any state and by any generation, is
// refused with a *DuplicateError naming the original. Any other error
// means the write must not be dispatched; should the row have been
// written all the same, it becomes unknown at Close or at a later Open.
func (l *impl) Reserve(ctx context.Context, e Entry) error {
	if e.ID == "" {
		return errors.New("ledger: an operation needs an id")
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	res, err := l.db.ExecContext(ctx, `INSERT INTO operations (`+entryColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reserved', '', '', ?, NULL, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		e.ID, e.Session, e.Task, e.Client, l.gen, e.Surface, e.Epoch, e.Document, e.Op, e.Action, e.Digest,
		time.Now().UnixNano(), keptInput(e.Input), e.Locator)
	if err != nil {
		return fmt.Errorf("ledger: reserving %s: %w", e.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	orig, err := l.get(ctx, e.ID)
	if err != nil {
		return fmt.Errorf("ledger: reserving %s: it was used, but reading it failed: %w", e.ID, err)
	}
	return &DuplicateError{Original: orig}
}

// Resurface names the surface an operation acted on when that is known
// only once it ran: the tab a write opened (tab new, open --partition).
func (l *impl) Resurface(ctx context.Context, id, surface string) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	if _, err := l.db.ExecContext(ctx, `UPDATE operations SET surface = ? WHERE id = ?`, surface, id); err != nil {
		return fmt.Errorf("ledger: naming %s's surface: %w", id, err)
	}
	return nil
}

// Settle records the outcome of a reserved operation: Executed,
// NotExecuted or Unknown, with a registry code and a reason for the last
// two. An id never reserved is ErrNotFound; one already settled (also as
// unknown by a recovery or a Close) is ErrSettled, and keeps its outcome.
func (l *impl) Settle(ctx context.Context, id string, s wire.OpState, code, reason string) error {
	switch s {
	case wire.OpExecuted, wire.OpNotExecuted, wire.OpUnknown:
	default:
		return fmt.Errorf("ledger: cannot settle %s as %q", id, s)
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	res, err := l.db.ExecContext(ctx, `UPDATE operations SET state = ?, code = ?, reason = ?, settled = ?
		WHERE id = ? AND state = 'reserved'`, s, code, reason, time.Now().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("ledger: settling %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	cur, err := l.get(ctx, id)
	if err != nil {
		return fmt.Errorf("ledger: settling %s: %w", id, err)
	}
	return fmt.Errorf("%w: %s is %s", ErrSettled, id, cur.State)
}

// Recover does again what Open did: what processes that have stopped
// since left reserved becomes unknown. Open is the only time the ledger
// does it itself, so a long-lived process that shares the file (the
// daemon, beside `loupe mcp` servers that come and go) calls it before
// showing reserved entries to a person. It returns how many entries it
// made unknown.
func (l *impl) Recover(ctx context.Context) (int, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return 0, ErrClosed
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("ledger: recovering: %w", err)
	}
	defer tx.Rollback()
	n, err := recoverStopped(ctx, tx, l.self, l.gen, time.Now().UnixNano())
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return 0, fmt.Errorf("ledger: recovering: %w", err)
	}
	return n, nil
}

// Acknowledge records that a person has seen an unknown outcome. Only an
// unknown operation can be acknowledged (ErrNotUnknown otherwise); it
// stays unknown, is never replayed, and a second acknowledgement keeps
// the first one's time.
func (l *impl) Acknowledge(ctx context.Context, id string) (Entry, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return Entry{}, ErrClosed
	}
	if _, err := l.db.ExecContext(ctx, `UPDATE operations SET acknowledged = ?
		WHERE id = ? AND state = 'unknown' AND acknowledged IS NULL`, time.Now().UnixNano(), id); err != nil {
		return Entry{}, fmt.Errorf("ledger: acknowledging %s: %w", id, err)
	}
	e, err := l.get(ctx, id)
	if err != nil {
		return Entry{}, err
	}
	if e.State != wire.OpUnknown {
		return e, fmt.Errorf("%w: %s is %s", ErrNotUnknown, id, e.State)
	}
	return e, nil
}

// Get reads one operation; ErrNotFound if the id was never reserved.
func (l *impl) Get(ctx context.Context, id string) (Entry, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return Entry{}, ErrClosed
	}
	return l.get(ctx, id)
}

func (l *impl) get(ctx context.Context, id string) (Entry, error) {
	e, err := scanEntry(l.db.QueryRowContext(ctx, `SELECT `+readColumns+` FROM operations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, ErrNotFound
	}
	return e, err
}

// List reads the operations f selects, the most recently reserved first,
// at most f.Limit of them (100 when it is 0 or less).
func (l *impl) List(ctx context.Context, f Filter) ([]Entry, error) {
	var where []string
	var args []any
	if f.State != "" {
		switch f.State {
		case wire.OpReserved, wire.OpExecuted, wire.OpNotExecuted, wire.OpUnknown:
		default:
			return nil, fmt.Errorf("ledger: no state %q", f.State)
		}
		where, args = append(where, "state = ?"), append(args, f.State)
	}
	if f.Session != "" {
		where, args = append(where, "session = ?"), append(args, f.Session)
	}
	if f.Task != "" {
		where, args = append(where, "task = ?"), append(args, f.Task)
	}
	q := `SELECT ` + readColumns + ` FROM operations`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q += ` ORDER BY seq DESC LIMIT ?`
	args = append(args, limit)

	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: listing: %w", err)
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("ledger: listing: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: listing: %w", err)
	}
	return out, nil
}

func scanEntry(r interface{ Scan(...any) error }) (Entry, error) {
	var e Entry
	var reserved int64
	var settled sql.NullInt64
	var acked sql.NullInt64
	err := r.Scan(&e.ID, &e.Session, &e.Task, &e.Client, &e.Generation, &e.Surface, &e.Epoch, &e.Document,
		&e.Op, &e.Action, &e.Digest, &e.State, &e.Code, &e.Reason, &reserved, &settled, &e.Input, &e.Locator, &acked)
	if err != nil {
		return Entry{}, err
	}
	e.Reserved = time.Unix(0, reserved)
	if settled.Valid {
		e.Settled = time.Unix(0, settled.Int64)
	}
	if acked.Valid {
		e.Acknowledged = time.Unix(0, acked.Int64)
	}
	return e, nil
}

// Close ends this generation: what it left reserved becomes unknown, as
// nothing will settle it now, and the generation is marked closed. It
// waits for calls in flight; calls after it return ErrClosed. Closing
// twice is harmless.
func (l *impl) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	err := l.endGeneration(context.Background())
	if cerr := l.db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ledger: closing: %w", err)
	}
	return nil
}

func (l *impl) endGeneration(ctx context.Context) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	reason := fmt.Sprintf("loupe (pid %d) closed its ledger before this write was settled", l.self.pid)
	if _, err := settleGeneration(ctx, tx, l.gen, reason, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE generations SET closed = ? WHERE id = ?`, now, l.gen); err != nil {
		return err
	}
	return tx.Commit()
}
