package wire

import (
	"fmt"
	"strings"
	"time"
)

// Operation is one write in the operation ledger.
type Operation struct {
	ID         string    `json:"operation_id" cap:"-"`
	Session    string    `json:"session" cap:"-"`
	Task       string    `json:"task,omitempty" cap:"-"`
	Client     string    `json:"client,omitempty" cap:"-"`
	Generation int64     `json:"generation"`
	SurfaceID  string    `json:"surface_id,omitempty" cap:"-"`
	Op         string    `json:"op" cap:"-"`
	Action     string    `json:"action" cap:"-"`
	Digest     string    `json:"digest" cap:"-"`
	State      string    `json:"state" cap:"-"` // reserved, executed, not_executed, unknown
	Code       string    `json:"code,omitempty" cap:"-"`
	Reason     string    `json:"reason,omitempty" cap:"text"`
	Reserved   time.Time `json:"reserved"`
	Settled    time.Time `json:"settled,omitzero"`
	// Acknowledged: a person said they have seen this unknown outcome.
	Acknowledged time.Time `json:"acknowledged,omitzero"`
}

// line is the operation on one line.
func (o Operation) line() string {
	s := fmt.Sprintf("%s %s %s %s", o.ID, o.State, o.Op, o.Reserved.UTC().Format(time.RFC3339))
	if o.SurfaceID != "" {
		s += " on " + o.SurfaceID
	}
	s += " (session " + o.Session + ")"
	if o.Reason != "" {
		s += ": " + o.Reason
	}
	if !o.Acknowledged.IsZero() {
		s += " [acknowledged]"
	}
	return s
}

// OperationsOut lists ledger entries, newest first.
type OperationsOut struct {
	Operations []Operation `json:"operations"`
}

// Text is one line an operation.
func (o *OperationsOut) Text() string {
	if len(o.Operations) == 0 {
		return "no operations"
	}
	ls := make([]string, len(o.Operations))
	for i, op := range o.Operations {
		ls[i] = op.line()
	}
	return strings.Join(ls, "\n")
}

// OperationOut is one ledger entry.
type OperationOut struct{ Operation }

// Text is its line.
func (o *OperationOut) Text() string { return o.line() }
