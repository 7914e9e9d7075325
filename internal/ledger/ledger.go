// Package ledger is loupe's operation ledger: every write is reserved on
// disk before anything is dispatched and settled with its outcome —
// executed, not executed (with why), or unknown. A write whose outcome was
// never settled (the daemon was killed, the browser died after input went
// out) is unknown, shown to the person, and never replayed. Operation ids
// are unique forever: a reused one is refused, also after a restart.
//
// The store is SQLite (modernc.org/sqlite, no cgo) in LOUPE_HOME, in WAL
// mode with synchronous=FULL: a reservation is on disk when Reserve
// returns, and survives the process being killed or the machine losing
// power. Several processes may share the file (a daemon and in-process
// `loupe mcp` servers); each Open is a generation of its own, recorded
// with the process that owns it, so a later Open can tell which reserved
// entries nobody will settle any more. The schema is versioned with
// PRAGMA user_version; its steps are schema/NNN_*.sql.
package ledger

import (
	"context"
	"errors"
	"time"

	"github.com/loupe-dev/loupe/internal/wire"
)

// Entry is one operation.
type Entry struct {
	ID         string       `json:"operation_id"`
	Session    string       `json:"session"`
	Task       string       `json:"task,omitempty"`
	Client     string       `json:"client,omitempty"`
	Generation int64        `json:"generation"` // of the process that reserved it
	Surface    string       `json:"surface_id,omitempty"`
	Epoch      int64        `json:"epoch,omitempty"`
	Document   string       `json:"document,omitempty"` // document token the write was aimed at
	Op         string       `json:"op"`
	Action     string       `json:"action"`
	Digest     string       `json:"digest"` // of the op and its input
	State      wire.OpState `json:"state"`
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

// Ledger is an open ledger. It is safe for concurrent use.
type Ledger struct {
	impl
}

// Open opens (creating if needed) the ledger at path, as a new generation
// of its writer. Entries still reserved by a generation whose process is
// gone become unknown: nothing settled them, so their outcome is not
// known.
func Open(ctx context.Context, path string) (*Ledger, error) { return open(ctx, path) }
