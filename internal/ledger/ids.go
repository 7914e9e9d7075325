package ledger

import (
	"context"
	"fmt"
)

// IDMarks are a session's id marks: the last surface and ref numbers it
// may have handed out. The next daemon starts its numbering past them.
type IDMarks struct {
	Surfaces int64
	Refs     int64
}

// KeepIDs records a session's id marks durably. Marks only grow: a lower
// number than the one on record (another process of the same home, an
// older write) leaves the record as it is.
func (l *impl) KeepIDs(ctx context.Context, session string, m IDMarks) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	_, err := l.db.ExecContext(ctx, `INSERT INTO id_spaces (session, surfaces, refs) VALUES (?, ?, ?)
		ON CONFLICT (session) DO UPDATE SET
			surfaces = max(surfaces, excluded.surfaces), refs = max(refs, excluded.refs)`,
		session, m.Surfaces, m.Refs)
	if err != nil {
		return fmt.Errorf("ledger: keeping %s's id marks: %w", session, err)
	}
	return nil
}

// IDs returns every session's id marks.
func (l *impl) IDs(ctx context.Context) (map[string]IDMarks, error) {
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
