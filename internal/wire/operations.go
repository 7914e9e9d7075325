package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/safetext"
)

// OpState is where a write is in its life. The ledger keeps it and every
// front end shows it and filters by it (ops --state), so the names are
// defined once, here.
type OpState string

// The states of a write. Reserved is only ever seen while the write runs.
const (
	OpReserved    OpState = "reserved"
	OpExecuted    OpState = "executed"
	OpNotExecuted OpState = "not_executed"
	OpUnknown     OpState = "unknown"
)

// Operation is one write in the operation ledger.
type Operation struct {
	ID         string `json:"operation_id" cap:"-"`
	Session    string `json:"session" cap:"-"`
	Task       string `json:"task,omitempty" cap:"-"`
	Client     string `json:"client,omitempty" cap:"-"`
	Generation int64  `json:"generation"`
	// Host is the identity of the host whose loupe reserved the write:
	// several share a PostgreSQL ledger (a name a person set, so bounded).
	Host      string `json:"host,omitempty" cap:"title"`
	SurfaceID string `json:"surface_id,omitempty" cap:"-"`
	// Epoch is the take-over epoch of the tab when the write was asked;
	// Document the document token it was planned on, if it gave one.
	Epoch    int64     `json:"epoch,omitempty"`
	Document string    `json:"document_token,omitempty" cap:"-"`
	Op       string    `json:"op" cap:"-"`
	Action   string    `json:"action" cap:"-"`
	Digest   string    `json:"digest" cap:"-"`
	State    OpState   `json:"state" cap:"-"`
	Code     string    `json:"code,omitempty" cap:"-"`
	Reason   string    `json:"reason,omitempty" cap:"text"`
	Reserved time.Time `json:"reserved"`
	Settled  time.Time `json:"settled,omitzero"`
	// Acknowledged: a person said they have seen this unknown outcome.
	Acknowledged time.Time `json:"acknowledged,omitzero"`
	// Input is what the write was asked (its input, as JSON; absent when
	// larger than the ledger keeps); Locator the stable locator of the
	// element it named by ref.
	Input   json.RawMessage `json:"input,omitempty" cap:"-"`
	Locator string          `json:"locator,omitempty" cap:"text"`
}

// line is the operation on one line; here is the host that answers, whose
// own operations do not name it.
func (o Operation) line(here string) string {
	s := fmt.Sprintf("%s %s %s %s", o.ID, o.State, o.Op, o.Reserved.UTC().Format(time.RFC3339))
	if o.SurfaceID != "" {
		s += " on " + o.SurfaceID
	}
	s += " (session " + o.Session
	if o.Host != "" && o.Host != here {
		s += ", host " + o.Host
	}
	s += ")"
	if o.Reason != "" {
		s += ": " + o.Reason
	}
	if !o.Acknowledged.IsZero() {
		s += " [acknowledged]"
	}
	return s
}

// OperationsOut lists ledger entries, newest first. Host is the identity
// of the host whose loupe answered: on a ledger several hosts share, the
// operations of others are the ones whose host differs.
type OperationsOut struct {
	Host       string      `json:"host,omitempty" cap:"title"`
	Operations []Operation `json:"operations"`
}

// Text is one line an operation; those of another host than the one
// that answered name their host (on one machine's ledger, none does).
func (o *OperationsOut) Text() string {
	if len(o.Operations) == 0 {
		return "no operations"
	}
	ls := make([]string, len(o.Operations))
	for i, op := range o.Operations {
		ls[i] = op.line(o.Host)
	}
	return strings.Join(ls, "\n")
}

// OperationOut is one ledger entry.
type OperationOut struct{ Operation }

// KeepTask keeps the task's operations only; it reports whether any is
// left (ops.TaskFilter: a confined caller reads its own).
func (o *OperationsOut) KeepTask(task string) bool {
	o.Operations = slices.DeleteFunc(o.Operations, func(op Operation) bool { return op.Task != task })
	return true
}

// KeepTask reports whether the operation is the task's.
func (o *OperationOut) KeepTask(task string) bool { return o.Task == task }

// Text is its line, then what --json gives of it, one field a line:
// task, client, host, surface and epoch, document token, locator, input.
func (o *OperationOut) Text() string {
	var b strings.Builder
	b.WriteString(o.line(o.Host)) // the host has its own line below
	field := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\n  %-9s %s", name, v)
		}
	}
	field("task", o.Task)
	field("client", o.Client)
	field("host", o.Host)
	if o.SurfaceID != "" {
		field("surface", fmt.Sprintf("%s (epoch %d)", o.SurfaceID, o.Epoch))
	}
	field("document", o.Document)
	field("code", o.Code)
	field("locator", o.Locator)
	field("input", safetext.Line(string(o.Input))) // JSON escapes controls, not bidi overrides
	return b.String()
}

// HistoryOut is what ran, oldest first (loupe history).
type HistoryOut struct {
	Operations []Operation `json:"operations"`
}

// Text is one line an operation: when, how it ended, what, on what.
func (o *HistoryOut) Text() string {
	if len(o.Operations) == 0 {
		return "nothing ran"
	}
	ls := make([]string, len(o.Operations))
	for i, op := range o.Operations {
		s := fmt.Sprintf("%s %s %s", op.Reserved.UTC().Format("15:04:05"), op.State, op.Op)
		if op.Locator != "" {
			s += " " + op.Locator
		}
		if op.Task != "" {
			s += " (task " + op.Task + ")"
		}
		if op.Code != "" {
			s += ": " + op.Code
		}
		ls[i] = s
	}
	return strings.Join(ls, "\n")
}
