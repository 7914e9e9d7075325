package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/wire"
)

// dialect is what differs between the backends' SQL. Every query is
// written once, with ? placeholders, in the SQL both databases speak; the
// few places they differ are here.
type dialect struct {
	// bind turns a query's ? placeholders into the driver's.
	bind func(q string) string
	// greatest is the function that takes the larger of two values
	// (SQLite's two-argument max, PostgreSQL's GREATEST).
	greatest string
	// hostOnly makes recovery look at this host's generations only: a
	// PostgreSQL ledger is shared by hosts whose processes this one
	// cannot see. A SQLite file is only ever opened on one machine, so
	// there every generation is checked, whatever host it recorded.
	hostOnly bool
	// lockHost, when set, is run first in a transaction that recovers,
	// with the host identity as its argument: it waits for any other
	// recovery of the same host, so two processes opening at once do not
	// both settle the same entries. SQLite needs none: its transactions
	// take the file's write lock at BEGIN.
	lockHost string
}

// sqliteDialect is SQLite's spelling.
var sqliteDialect = dialect{bind: func(q string) string { return q }, greatest: "max"}

// sqlStore is a Store on a database/sql database: both backends are one,
// with their own dialect, connection settings and migrations.
type sqlStore struct {
	db        *sql.DB
	d         dialect
	self      proc
	host      string
	where     string // the SQLite file, or the PostgreSQL URL without its password
	gen       int64
	recovered int

	// mu guards closed. Every call holds it for reading while it uses db;
	// Close holds it for writing, so it waits for the calls in flight and
	// none starts after it.
	mu     sync.RWMutex
	closed bool
}

func (l *sqlStore) Generation() int64 { return l.gen }
func (l *sqlStore) Host() string      { return l.host }
func (l *sqlStore) Where() string     { return l.where }
func (l *sqlStore) Recovered() int    { return l.recovered }

// q is query in this store's dialect.
func (l *sqlStore) q(query string) string { return l.d.bind(query) }

// begin starts this generation, recovering what stopped processes of this
// host left reserved. The schema is up to date.
func (l *sqlStore) begin(ctx context.Context) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := l.lockHost(ctx, tx, l.host); err != nil {
		return err
	}
	now := time.Now().UnixNano()
	err = tx.QueryRowContext(ctx, l.q(`INSERT INTO generations (pid, start_ticks, boot_id, host, opened)
		VALUES (?, ?, ?, ?, ?) RETURNING id`), l.self.pid, l.self.start, l.self.boot, l.host, now).Scan(&l.gen)
	if err != nil {
		return err
	}
	if l.recovered, err = l.recoverStopped(ctx, tx, now); err != nil {
		return err
	}
	return tx.Commit()
}

// lockHost waits in tx for any other recovery of host's rows (see
// dialect.lockHost).
func (l *sqlStore) lockHost(ctx context.Context, tx *sql.Tx, host string) error {
	if l.d.lockHost == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, l.q(l.d.lockHost), host)
	return err
}

const entryColumns = `id, session, task, client, generation, surface, epoch, document, op, action, digest,
	state, code, reason, reserved, settled, input, locator`

// readColumns are what a read scans: the columns a reservation writes, a
// person's acknowledgement, and the host of the row's generation.
const readColumns = `o.id, o.session, o.task, o.client, o.generation, o.surface, o.epoch, o.document, o.op, o.action,
	o.digest, o.state, o.code, o.reason, o.reserved, o.settled, o.input, o.locator, o.acknowledged, g.host`

// fromOperations is what a read selects from: every operation with its
// generation, whose host it shows.
const fromOperations = ` FROM operations o JOIN generations g ON g.id = o.generation`

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
// dispatched; it returns once the row is durable (see the package doc).
// It sets e's Generation, State and Reserved and clears its outcome. An id
// used before, in any state and by any generation of any host, is refused
// with a *DuplicateError naming the original. Any other error means the
// write must not be dispatched; should the row have been written all the
// same, it becomes unknown at Close or at a later Open.
func (l *sqlStore) Reserve(ctx context.Context, e Entry) error {
	if e.ID == "" {
		return errors.New("ledger: an operation needs an id")
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	res, err := l.db.ExecContext(ctx, l.q(`INSERT INTO operations (`+entryColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reserved', '', '', ?, NULL, ?, ?)
		ON CONFLICT (id) DO NOTHING`),
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
func (l *sqlStore) Resurface(ctx context.Context, id, surface string) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	if _, err := l.db.ExecContext(ctx, l.q(`UPDATE operations SET surface = ? WHERE id = ?`), surface, id); err != nil {
		return fmt.Errorf("ledger: naming %s's surface: %w", id, err)
	}
	return nil
}

// Settle records the outcome of a reserved operation: Executed,
// NotExecuted or Unknown, with a registry code and a reason for the last
// two. An id never reserved is ErrNotFound; one already settled (also as
// unknown by a recovery or a Close) is ErrSettled, and keeps its outcome.
func (l *sqlStore) Settle(ctx context.Context, id string, s wire.OpState, code, reason string) error {
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
	res, err := l.db.ExecContext(ctx, l.q(`UPDATE operations SET state = ?, code = ?, reason = ?, settled = ?
		WHERE id = ? AND state = 'reserved'`), string(s), code, reason, time.Now().UnixNano(), id)
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

// Recover does again what Open did: what processes of this host that have
// stopped since left reserved becomes unknown. Open is the only time the
// ledger does it itself, so a long-lived process that shares the ledger
// (the daemon, beside `loupe mcp` servers that come and go) calls it
// before showing reserved entries to a person. It returns how many
// entries it made unknown.
func (l *sqlStore) Recover(ctx context.Context) (int, error) {
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
	err = l.lockHost(ctx, tx, l.host)
	var n int
	if err == nil {
		n, err = l.recoverStopped(ctx, tx, time.Now().UnixNano())
	}
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
func (l *sqlStore) Acknowledge(ctx context.Context, id string) (Entry, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return Entry{}, ErrClosed
	}
	if _, err := l.db.ExecContext(ctx, l.q(`UPDATE operations SET acknowledged = ?
		WHERE id = ? AND state = 'unknown' AND acknowledged IS NULL`), time.Now().UnixNano(), id); err != nil {
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
func (l *sqlStore) Get(ctx context.Context, id string) (Entry, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return Entry{}, ErrClosed
	}
	return l.get(ctx, id)
}

func (l *sqlStore) get(ctx context.Context, id string) (Entry, error) {
	e, err := scanEntry(l.db.QueryRowContext(ctx, l.q(`SELECT `+readColumns+fromOperations+` WHERE o.id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, ErrNotFound
	}
	return e, err
}

// List reads the operations f selects, of every host, the most recently
// reserved first, at most f.Limit of them (100 when it is 0 or less).
func (l *sqlStore) List(ctx context.Context, f Filter) ([]Entry, error) {
	var where []string
	var args []any
	if f.State != "" {
		switch f.State {
		case wire.OpReserved, wire.OpExecuted, wire.OpNotExecuted, wire.OpUnknown:
		default:
			return nil, fmt.Errorf("ledger: no state %q", f.State)
		}
		where, args = append(where, "o.state = ?"), append(args, string(f.State))
	}
	if f.Session != "" {
		where, args = append(where, "o.session = ?"), append(args, f.Session)
	}
	if f.Task != "" {
		where, args = append(where, "o.task = ?"), append(args, f.Task)
	}
	q := `SELECT ` + readColumns + fromOperations
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q += ` ORDER BY o.seq DESC LIMIT ?`
	args = append(args, limit)

	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	out, err := scanEntries(l.db.QueryContext(ctx, l.q(q), args...))
	if err != nil {
		return nil, fmt.Errorf("ledger: listing: %w", err)
	}
	return out, nil
}

// scanEntries reads the entries a query of readColumns returned (none:
// an empty list), and closes its rows.
func scanEntries(rows *sql.Rows, err error) ([]Entry, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEntry(r interface{ Scan(...any) error }) (Entry, error) {
	var e Entry
	var reserved int64
	var settled sql.NullInt64
	var acked sql.NullInt64
	err := r.Scan(&e.ID, &e.Session, &e.Task, &e.Client, &e.Generation, &e.Surface, &e.Epoch, &e.Document,
		&e.Op, &e.Action, &e.Digest, &e.State, &e.Code, &e.Reason, &reserved, &settled, &e.Input, &e.Locator, &acked, &e.Host)
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

// KeepIDs records a session's id marks durably. Marks only grow: a lower
// number than the one on record (another process of the same home, an
// older write; on PostgreSQL, a session of the same name on another
// host) leaves the record as it is.
func (l *sqlStore) KeepIDs(ctx context.Context, session string, m IDMarks) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	g := l.d.greatest
	_, err := l.db.ExecContext(ctx, l.q(`INSERT INTO id_spaces (session, surfaces, refs) VALUES (?, ?, ?)
		ON CONFLICT (session) DO UPDATE SET
			surfaces = `+g+`(id_spaces.surfaces, excluded.surfaces), refs = `+g+`(id_spaces.refs, excluded.refs)`),
		session, m.Surfaces, m.Refs)
	if err != nil {
		return fmt.Errorf("ledger: keeping %s's id marks: %w", session, err)
	}
	return nil
}

// IDs returns every session's id marks.
func (l *sqlStore) IDs(ctx context.Context) (map[string]IDMarks, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	rows, err := l.db.QueryContext(ctx, `SELECT session, surfaces, refs FROM id_spaces`)
	if err != nil {
		return nil, fmt.Errorf("ledger: reading id marks: %w", err)
	}
	defer rows.Close()
	out := map[string]IDMarks{}
	for rows.Next() {
		var name string
		var m IDMarks
		if err := rows.Scan(&name, &m.Surfaces, &m.Refs); err != nil {
			return nil, fmt.Errorf("ledger: reading id marks: %w", err)
		}
		out[name] = m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("ledger: reading id marks: %w", err)
	}
	return out, nil
}

// Close ends this generation: what it left reserved becomes unknown, as
// nothing will settle it now, and the generation is marked closed. It
// waits for calls in flight; calls after it return ErrClosed. Closing
// twice is harmless.
func (l *sqlStore) Close() error {
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

func (l *sqlStore) endGeneration(ctx context.Context) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixNano()
	reason := fmt.Sprintf("loupe (pid %d) closed its ledger before this write was settled", l.self.pid)
	if _, err := l.settleGeneration(ctx, tx, l.gen, reason, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, l.q(`UPDATE generations SET closed = ? WHERE id = ?`), now, l.gen); err != nil {
		return err
	}
	return tx.Commit()
}

// dollarBind is PostgreSQL's bind: the nth ? becomes $n. No query of the
// ledger has a ? anywhere else (in a string or a comment).
func dollarBind(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r != '?' {
			b.WriteRune(r)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}
