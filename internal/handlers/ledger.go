package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

func ledgerHandlers() map[string]Handler {
	return map[string]Handler{
		"ops": Ledger(func(ctx context.Context, l OpLog, in *ops.OpsIn) (*ops.OperationsOut, error) {
			es, err := l.List(ctx, ledger.Filter{State: wire.OpState(in.State), Session: in.Session, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			return &ops.OperationsOut{Host: l.Host(), Operations: mapSlice(es, operationOf)}, nil
		}),
		"ops show": Ledger(func(ctx context.Context, l OpLog, in *ops.OpIDIn) (*ops.OperationOut, error) {
			e, err := l.Get(ctx, in.ID)
			if errors.Is(err, ledger.ErrNotFound) {
				return nil, apitype.Errorf(apitype.BadInput, "no operation %q in the ledger", in.ID).Fix("list them ({1})", apitype.Step{Op: "ops"})
			}
			if err != nil {
				return nil, err
			}
			return &ops.OperationOut{Operation: operationOf(e)}, nil
		}),
		"ops ack": Ledger(func(ctx context.Context, l OpLog, in *ops.OpIDIn) (*ops.OperationOut, error) {
			e, err := l.Acknowledge(ctx, in.ID)
			switch {
			case errors.Is(err, ledger.ErrNotFound):
				return nil, apitype.Errorf(apitype.BadInput, "no operation %q in the ledger", in.ID).Fix("list the unknown ones ({1})", apitype.Step{Op: "ops", Args: map[string]string{"state": "unknown"}})
			case errors.Is(err, ledger.ErrNotUnknown):
				return nil, apitype.Errorf(apitype.BadInput, "operation %s is %s: only an unknown outcome is acknowledged", in.ID, e.State)
			case err != nil:
				return nil, err
			}
			return &ops.OperationOut{Operation: operationOf(e)}, nil
		}),
		"ops forget-host": Ledger(func(ctx context.Context, l OpLog, in *ops.HostIn) (*ops.OperationsOut, error) {
			es, err := l.ForgetHost(ctx, in.Host)
			if errors.Is(err, ledger.ErrOwnHost) {
				return nil, apitype.Errorf(apitype.BadInput, "%s is this daemon's own host: what its stopped processes left is settled when loupe starts, and its running ones settle their own", in.Host).
					Fix("list what is still reserved ({1})", apitype.Step{Op: "ops", Args: map[string]string{"state": "reserved"}})
			}
			if err != nil {
				return nil, err
			}
			return &ops.OperationsOut{Host: l.Host(), Operations: mapSlice(es, operationOf)}, nil
		}),
		"history": Ledger(func(ctx context.Context, l OpLog, in *ops.HistoryIn) (*ops.HistoryOut, error) {
			es, err := l.List(ctx, ledger.Filter{Session: in.Session, Task: in.Task, Limit: in.Limit})
			if err != nil {
				return nil, err
			}
			slices.Reverse(es) // oldest first
			return &ops.HistoryOut{Operations: mapSlice(es, operationOf)}, nil
		}),
	}
}

func operationOf(e ledger.Entry) wire.Operation {
	return wire.Operation{ID: e.ID, Session: e.Session, Task: e.Task, Client: e.Client, Generation: e.Generation, Host: e.Host, SurfaceID: e.Surface,
		Epoch: e.Epoch, Document: e.Document,
		Op: e.Op, Action: e.Action, Digest: e.Digest, State: e.State, Code: e.Code, Reason: e.Reason,
		Reserved: e.Reserved, Settled: e.Settled, Acknowledged: e.Acknowledged, Input: rawInput(e.Input), Locator: e.Locator}
}

func rawInput(s string) json.RawMessage {
	if s == "" || !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
}
