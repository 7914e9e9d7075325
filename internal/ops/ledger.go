package ops

import (
	"strings"
	"unicode"

	"github.com/loupe-dev/loupe/internal/wire"
)

// OpsIn filters the ledger.
type OpsIn struct {
	State   string `json:"state,omitempty" flag:"state" help:"only operations in this state: executed, not_executed or unknown"`
	Session string `json:"session,omitempty" flag:"session" meta:"NAME" help:"only this session's operations (default: every session's)"`
	Limit   int    `json:"limit,omitempty" flag:"limit" meta:"N" help:"list at most N, newest first (default 100)"`
}

// Validate checks the state and the limit.
func (in *OpsIn) Validate() error {
	switch wire.OpState(in.State) {
	case "", wire.OpExecuted, wire.OpNotExecuted, wire.OpUnknown, wire.OpReserved:
	default:
		return usage("%s %q: want executed, not_executed, unknown or reserved", fld("state"), in.State)
	}
	if in.Limit < 0 {
		return usage("%s takes a positive number", fld("limit"))
	}
	return nil
}

// OpIDIn names one operation.
type OpIDIn struct {
	ID string `json:"operation_id" arg:"ID" help:"an operation id, as listed by ops (op-…)"`
}

// Validate checks the id is given.
func (in *OpIDIn) Validate() error {
	if in.ID == "" {
		return usage("missing %s", fld("operation_id"))
	}
	return nil
}

// HostIn names a host of a shared ledger.
type HostIn struct {
	Host string `json:"host" arg:"HOST" help:"a host identity, as ops lists it (its LOUPE_HOST, or its machine's name)"`
}

// Validate checks the host is given and is a plausible identity.
func (in *HostIn) Validate() error {
	switch {
	case in.Host == "":
		return usage("missing %s", fld("host"))
	case len(in.Host) > 256 || strings.ContainsFunc(in.Host, unicode.IsControl):
		return usage("%s: not a host identity (at most 256 characters, no control characters)", fld("host"))
	}
	return nil
}

// HistoryIn selects what history shows.
type HistoryIn struct {
	Session string `json:"session,omitempty" flag:"session" meta:"NAME" help:"only this session's writes (default: every session's)"`
	Task    string `json:"task,omitempty" flag:"task" meta:"ID" help:"only this task's writes"`
	Limit   int    `json:"limit,omitempty" flag:"limit" meta:"N" help:"the last N writes (default 100)"`
	// As is the CLI's: script prints a shell script that does the
	// executed writes again.
	As string `json:"-" flag:"as" meta:"script" help:"script: print a shell script of loupe commands that does the executed writes again"`
}

// Validate checks the limit and the form.
func (in *HistoryIn) Validate() error {
	if in.Limit < 0 {
		return usage("%s takes a positive number", fld("limit"))
	}
	if in.As != "" && in.As != "script" {
		return usage("--as %q: want script", in.As)
	}
	return nil
}

// HistoryOut is what ran, oldest first.
type HistoryOut = wire.HistoryOut

// OperationsOut lists ledger entries.
type OperationsOut = wire.OperationsOut

// OperationOut is one ledger entry.
type OperationOut = wire.OperationOut

func ledgerOps() []*Op {
	return []*Op{
		describe[OpsIn, OperationsOut]("ops", "list the writes in the operation ledger and their outcomes (unknown ones are never replayed)", Read, actTimeout).sessionWide().noBrowser().mcp(Tool{Name: "browser_operations", Select: "action", Value: "list", Default: true,
			Desc: "The writes in the operation ledger and their outcomes; an unknown one may or may not have happened and is never replayed."}),
		describe[OpIDIn, OperationOut]("ops show", "show one write of the operation ledger", Read, actTimeout).sessionWide().noBrowser().mcp(Tool{Name: "browser_operations", Select: "action", Value: "show"}),
		describe[OpIDIn, OperationOut]("ops ack", "acknowledge an unknown outcome: say you have looked at the page (it stays unknown and is never replayed)", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP("a person looks at the page and says so; an agent cannot have seen what it does not know"),
		describe[HostIn, OperationsOut]("ops forget-host", "declare a host of a shared ledger gone for good: the writes it left reserved become unknown (never replayed); lists them", Write, actTimeout).as(ActControl).sessionWide().noBrowser().noMCP("only a person knows that a machine will not come back"),
		describe[HistoryIn, HistoryOut]("history", "list the writes that ran, oldest first, with their outcomes and targets (--as script: a script that does them again)", Read, actTimeout).sessionWide().noBrowser().noMCP("a person's record of a session, to turn into a job or a test; agents read the ledger with browser_operations"),
	}
}
