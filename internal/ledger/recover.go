package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// recoverStopped makes unknown what stopped processes left reserved. A
// generation not closed whose process still runs is left alone: its
// writes may be in flight and it will settle them. One whose process is
// gone (or whose pid now names another process) is closed now, and its
// reserved entries, like any a closed generation left, become unknown:
// nothing will ever settle them, and whether their input went out is not
// known.
//
// On PostgreSQL (dialect.hostOnly) only generations of this host are
// looked at: a pid, a start time and a boot id mean something only on the
// host they came from, so another host's generations are neither judged
// nor touched, whatever their state; that host settles them when it next
// starts. (A host that never comes back leaves its reserved rows reserved
// until a person says it is gone: ForgetHost.)
//
// It runs in the transaction of Open or Recover, which holds the write
// lock (SQLite) or this host's advisory lock (PostgreSQL), so two
// processes opening at once do not both recover the same entries. It
// returns how many entries it made unknown.
func (l *sqlStore) recoverStopped(ctx context.Context, tx *sql.Tx, now int64) (int, error) {
	q := `SELECT id, pid, start_ticks, boot_id, closed IS NOT NULL FROM generations
		WHERE id <> ? AND (closed IS NULL OR id IN (SELECT generation FROM operations WHERE state = 'reserved'))`
	args := []any{l.gen}
	if l.d.hostOnly {
		q += ` AND host = ?`
		args = append(args, l.host)
	}
	rows, err := tx.QueryContext(ctx, l.q(q), args...)
	if err != nil {
		return 0, err
	}
	type generation struct {
		id     int64
		p      proc
		closed bool
	}
	var gens []generation
	for rows.Next() {
		var g generation
		if err := rows.Scan(&g.id, &g.p.pid, &g.p.start, &g.p.boot, &g.closed); err != nil {
			rows.Close()
			return 0, err
		}
		gens = append(gens, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}

	total := 0
	for _, g := range gens {
		if !g.closed {
			if g.p.alive(l.self) {
				continue
			}
			if _, err := tx.ExecContext(ctx, l.q(`UPDATE generations SET closed = ? WHERE id = ?`), now, g.id); err != nil {
				return 0, err
			}
		}
		reason := fmt.Sprintf("loupe (pid %d) stopped before this write was settled", g.p.pid)
		n, err := l.settleGeneration(ctx, tx, g.id, reason, now)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// settleGeneration makes a generation's reserved entries unknown.
func (l *sqlStore) settleGeneration(ctx context.Context, tx *sql.Tx, gen int64, reason string, now int64) (int, error) {
	return l.settleUnknown(ctx, tx, `generation = ?`, reason, now, gen)
}

// settleUnknown makes the reserved entries where (with args) selects
// unknown, for reason.
func (l *sqlStore) settleUnknown(ctx context.Context, tx *sql.Tx, where, reason string, now int64, args ...any) (int, error) {
	res, err := tx.ExecContext(ctx, l.q(`UPDATE operations SET state = 'unknown', code = ?, reason = ?, settled = ?
		WHERE state = 'reserved' AND `+where), append([]any{string(apitype.OutcomeUnknown), reason, now}, args...)...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ErrOwnHost is ForgetHost's answer for the host of the ledger's own
// process: its stopped processes' rows are recovered by Open and Recover,
// and its running ones settle their own.
var ErrOwnHost = errors.New("ledger: this is the ledger's own host")

// ForgetHost is a person's word that a host of a shared ledger is gone
// for good (the machine was retired, its disk lost): what its processes
// left reserved becomes unknown, as recovery would have made it had the
// host started again, and its generations are closed. Only a person can
// know a host will not come back — no process of this host can see
// another's — so nothing calls it by itself. Were the host still running
// after all, its later Settle of such a row finds it settled and the row
// stays unknown (never replayed): the word errs on the safe side. It
// returns the entries it made unknown, newest first (none: the host
// left nothing reserved, or the ledger never knew it).
//
// It holds the host's recovery lock (PostgreSQL's advisory lock, SQLite's
// write lock), so it never runs beside that host's own recovery.
func (l *sqlStore) ForgetHost(ctx context.Context, host string) ([]Entry, error) {
	if host == l.host {
		return nil, ErrOwnHost
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	out, err := l.forgetHost(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("ledger: forgetting host %s: %w", host, err)
	}
	return out, nil
}

func (l *sqlStore) forgetHost(ctx context.Context, host string) ([]Entry, error) {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if err := l.lockHost(ctx, tx, host); err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	reason := fmt.Sprintf("host %s was declared gone (loupe ops forget-host) before this write was settled", host)
	if _, err := l.settleUnknown(ctx, tx, `generation IN (SELECT id FROM generations WHERE host = ?)`, reason, now, host); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, l.q(`UPDATE generations SET closed = ? WHERE host = ? AND closed IS NULL`), now, host); err != nil {
		return nil, err
	}
	// What this call settled: its time and reason are its own.
	out, err := scanEntries(tx.QueryContext(ctx, l.q(`SELECT `+readColumns+fromOperations+`
		WHERE g.host = ? AND o.state = 'unknown' AND o.settled = ? AND o.reason = ? ORDER BY o.seq DESC`), host, now, reason))
	if err != nil {
		return nil, err
	}
	return out, tx.Commit()
}
