package ops

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/wire"
)

// OpLog reads the operation ledger.
type OpLog interface {
	Get(ctx context.Context, id string) (ledger.Entry, error)
	List(ctx context.Context, f ledger.Filter) ([]ledger.Entry, error)
	Acknowledge(ctx context.Context, id string) (ledger.Entry, error)
}

// OpsIn filters the ledger.
type OpsIn struct {
	State   string `json:"state,omitempty" flag:"state" help:"only operations in this state: executed, not_executed or unknown"`
	Session string `json:"session,omitempty" flag:"session" meta:"NAME" help:"only this session's operations (default: every session's)"`
	Limit   int    `json:"limit,omitempty" flag:"limit" meta:"N" help:"list at most N, newest first (default 100)"`
}

// Validate checks the state and the limit.
func (in *OpsIn) Validate() error {
	switch ledger.State(in.State) {
	case "", ledger.Executed, ledger.NotExecuted, ledger.Unknown, ledger.Reserved:
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

func operationOf(e ledger.Entry) wire.Operation {
	return wire.Operation{ID: e.ID, Session: e.Session, Task: e.Task, Client: e.Client, Generation: e.Generation, SurfaceID: e.Surface,
		Op: e.Op, Action: e.Action, Digest: e.Digest, State: string(e.State), Code: e.Code, Reason: e.Reason,
		Reserved: e.Reserved, Settled: e.Settled, Acknowledged: e.Acknowledged, Input: rawInput(e.Input), Locator: e.Locator}
}

func rawInput(s string) json.RawMessage {
	if s == "" || !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
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
	list := define("ops", "list the writes in the operation ledger and their outcomes (unknown ones are never replayed)", Read, actTimeout,
		func(ctx context.Context, env Env, in *OpsIn) (*OperationsOut, error) {
			l, err := env.Operations()
			if err != nil {
				return nil, err
			}
			es, err := l.List(ctx, ledger.Filter{State: ledger.State(in.State), Session: in.Session, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			return &OperationsOut{Operations: mapSlice(es, operationOf)}, nil
		}).sessionWide().mcp(Tool{Name: "browser_operations", Select: "action", Value: "list", Default: true,
		Desc: "The writes in the operation ledger and their outcomes; an unknown one may or may not have happened and is never replayed."})
	list.NoBrowser = true
	show := define("ops show", "show one write of the operation ledger", Read, actTimeout,
		func(ctx context.Context, env Env, in *OpIDIn) (*OperationOut, error) {
			l, err := env.Operations()
			if err != nil {
				return nil, err
			}
			e, err := l.Get(ctx, in.ID)
			if errors.Is(err, ledger.ErrNotFound) {
				return nil, apitype.Errorf(apitype.BadInput, "no operation %q in the ledger", in.ID).Fix("list them ({1})", apitype.Step{Op: "ops"})
			}
			if err != nil {
				return nil, err
			}
			return &OperationOut{Operation: operationOf(e)}, nil
		}).sessionWide().mcp(Tool{Name: "browser_operations", Select: "action", Value: "show"})
	show.NoBrowser = true
	ack := define("ops ack", "acknowledge an unknown outcome: say you have looked at the page (it stays unknown and is never replayed)", Write, actTimeout,
		func(ctx context.Context, env Env, in *OpIDIn) (*OperationOut, error) {
			l, err := env.Operations()
			if err != nil {
				return nil, err
			}
			e, err := l.Acknowledge(ctx, in.ID)
			switch {
			case errors.Is(err, ledger.ErrNotFound):
				return nil, apitype.Errorf(apitype.BadInput, "no operation %q in the ledger", in.ID).Fix("list the unknown ones ({1})", apitype.Step{Op: "ops", Args: map[string]string{"state": "unknown"}})
			case errors.Is(err, ledger.ErrNotUnknown):
				return nil, apitype.Errorf(apitype.BadInput, "operation %s is %s: only an unknown outcome is acknowledged", in.ID, e.State)
			case err != nil:
				return nil, err
			}
			return &OperationOut{Operation: operationOf(e)}, nil
		}).as(ActControl).sessionWide().noMCP("a person looks at the page and says so; an agent cannot have seen what it does not know")
	ack.NoBrowser = true
	history := define("history", "list the writes that ran, oldest first, with their outcomes and targets (--as script: a script that does them again)", Read, actTimeout,
		func(ctx context.Context, env Env, in *HistoryIn) (*HistoryOut, error) {
			l, err := env.Operations()
			if err != nil {
				return nil, err
			}
			es, err := l.List(ctx, ledger.Filter{Session: in.Session, Task: in.Task, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			slices.Reverse(es) // oldest first
			return &HistoryOut{Operations: mapSlice(es, operationOf)}, nil
		}).sessionWide().noMCP("a person's record of a session, to turn into a job or a test; agents read the ledger with browser_operations")
	history.NoBrowser = true
	return []*Op{list, show, ack, history}
}
