// Package ledger is loupe's operation ledger: every write is reserved
// durably before anything is dispatched and settled with its outcome —
// executed, not executed (with why), or unknown. A write whose outcome was
// never settled (the daemon was killed, the browser died after input went
// out) is unknown, shown to the person, and never replayed. Operation ids
// are unique forever: a reused one is refused, also after a restart.
//
// Two backends keep the rows (Store). The default is SQLite
// (modernc.org/sqlite, no cgo) in LOUPE_HOME, in WAL mode with
// synchronous=FULL: a reservation is on disk when Reserve returns, and
// survives the process being killed or the machine losing power. The
// other is PostgreSQL, for a fleet: several daemons on several hosts share
// one database, so an operation id is unique fleet-wide and an unknown
// outcome one host left is seen from every other (see postgres.go).
//
// Several processes may share one ledger (a daemon and in-process `loupe
// mcp` servers; on PostgreSQL, daemons of other hosts); each Open is a
// generation of its own, recorded with the process that owns it and the
// host it runs on (LocalHost), so a later Open can tell which reserved
// entries nobody will settle any more. Only a process of the same host can
// be checked, so recovery settles only its own host's rows. Both schemas
// are versioned; their steps are schema/NNN_*.sql (SQLite) and
// schema/pg/NNN_*.sql (PostgreSQL).
package ledger

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/wire"
)

// Entry is one operation.
type Entry struct {
	ID         string `json:"operation_id"`
	Session    string `json:"session"`
	Task       string `json:"task,omitempty"`
	Client     string `json:"client,omitempty"`
	Generation int64  `json:"generation"` // of the process that reserved it
	// Host is the identity of the host whose process reserved it (its
	// generation's; see LocalHost). Rows of a SQLite ledger made before
	// hosts were recorded have none.
	Host     string       `json:"host,omitempty"`
	Surface  string       `json:"surface_id,omitempty"`
	Epoch    int64        `json:"epoch,omitempty"`
	Document string       `json:"document,omitempty"` // document token the write was aimed at
	Op       string       `json:"op"`
	Action   string       `json:"action"`
	Digest   string       `json:"digest"` // of the op and its input
	State    wire.OpState `json:"state"`
	// Code and Reason say why it did not execute, or why its outcome is
	// unknown (a registry code and a message).
	Code     string    `json:"code,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Reserved time.Time `json:"reserved"`
	Settled  time.Time `json:"settled,omitzero"`
	// Acknowledged is when a person said they had seen an unknown
	// outcome (zero: nobody has).
	Acknowledged time.Time `json:"acknowledged,omitzero"`
	// Input is the write's input as JSON ("" when it was larger than
	// MaxInput); Locator the stable locator of the element it named by
	// ref, when there was one.
	Input   string `json:"input,omitempty"`
	Locator string `json:"locator,omitempty"`
}

// Filter selects entries for List; zero fields match everything.
type Filter struct {
	State   wire.OpState
	Session string
	Task    string
	Limit   int // most recent first; 0: 100
}

// ErrNotFound is Get's and Settle's answer for an id never reserved.
var ErrNotFound = errors.New("ledger: no such operation")

// ErrSettled is Settle's answer for an operation whose outcome is already
// recorded (by an earlier Settle, or as unknown by a recovery or a Close):
// an outcome, once written, stands.
var ErrSettled = errors.New("ledger: operation already settled")

// ErrNotUnknown is Acknowledge's answer for an operation whose outcome is
// known: there is nothing to acknowledge.
var ErrNotUnknown = errors.New("ledger: outcome is not unknown")

// ErrClosed is the answer of every call on a closed Ledger.
var ErrClosed = errors.New("ledger: closed")

// DuplicateError refuses a reserved id: ids are never reused.
type DuplicateError struct{ Original Entry }

func (e *DuplicateError) Error() string {
	return "operation " + e.Original.ID + " was already used (" + string(e.Original.State) + ")"
}

// Store is a ledger's backend: where its rows live and how a generation
// begins, recovers and ends. Its calls are those of Ledger.
type Store interface {
	// Generation is this Open's generation, greater than that of every
	// earlier Open of the same ledger, whichever process or host did it.
	Generation() int64
	// Host is the host identity this Open records on its generation.
	Host() string
	// Where is the ledger's place, fit to show: the SQLite file's
	// absolute path, or the PostgreSQL URL with its password as xxxxx.
	Where() string
	// Recovered is how many reserved entries of stopped processes Open
	// made unknown.
	Recovered() int

	Reserve(ctx context.Context, e Entry) error
	Resurface(ctx context.Context, id, surface string) error
	Settle(ctx context.Context, id string, s wire.OpState, code, reason string) error
	Recover(ctx context.Context) (int, error)
	ForgetHost(ctx context.Context, host string) ([]Entry, error)
	Acknowledge(ctx context.Context, id string) (Entry, error)
	Get(ctx context.Context, id string) (Entry, error)
	List(ctx context.Context, f Filter) ([]Entry, error)
	KeepIDs(ctx context.Context, session string, m IDMarks) error
	IDs(ctx context.Context) (map[string]IDMarks, error)
	Close() error
}

// Ledger is an open ledger, on the backend Open chose. It is safe for
// concurrent use.
type Ledger struct {
	Store
}

// Open opens (creating if needed) the ledger at target, as a new
// generation of its writer on this host (LocalHost). Entries this host's
// processes left reserved and that have stopped become unknown: nothing
// settled them, so their outcome is not known.
//
// A target that starts with postgres:// or postgresql:// is a PostgreSQL
// database (IsPostgres); any other is the path of a SQLite file, whose
// directory must exist.
func Open(ctx context.Context, target string) (*Ledger, error) {
	return OpenAs(ctx, target, LocalHost())
}

// OpenAs is Open as the given host identity rather than LocalHost's: for
// tests that play several hosts on one machine.
func OpenAs(ctx context.Context, target, host string) (*Ledger, error) {
	if host == "" {
		return nil, errors.New("ledger: no host identity given")
	}
	var s Store
	var err error
	if IsPostgres(target) {
		s, err = openPostgres(ctx, target, host)
	} else {
		s, err = openSQLite(ctx, target, host)
	}
	if err != nil {
		return nil, err
	}
	return &Ledger{s}, nil
}

// IsPostgres reports whether target names a PostgreSQL database rather
// than a SQLite file: a postgres:// or postgresql:// URL.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}
