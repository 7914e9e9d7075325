package executor

import (
	"context"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// TestRefusalsStage: a write refused before its reservation (a take-over,
// the policy, a person's control, a grant) is recorded not executed with
// its code, under the caller's id or a new one the error then names; the
// caller's own mistakes (malformed input, a reused id) and reads leave no
// row, and a reserved write is settled by the settle stage, not here.
func TestRefusalsStage(t *testing.T) {
	l := openLedger(t)
	disk := guard.DiskLedger{Store: l, Log: testLog(t)}
	click := describe[ops.ClickIn]("click", ops.Write)
	run := func(c *call, err *apitype.Error) *outcome {
		leave, _ := enter(t, refusalsStage{disk}, c)
		o := &outcome{err: err}
		if leave != nil {
			leave(o)
		}
		return o
	}
	refusal := func(code apitype.Code) *apitype.Error { return apitype.Errorf(code, "refused") }

	c := fakeCall(t, click, &ops.ClickIn{Target: "e1"}, nil)
	c.req.OperationID = "pay-1"
	if o := run(c, refusal(apitype.Denied)); o.err.OperationID != "pay-1" {
		t.Fatalf("the error names %q", o.err.OperationID)
	}
	if e, err := l.Get(context.Background(), "pay-1"); err != nil || e.State != wire.OpNotExecuted || e.Code != "DENIED" || e.Op != "click" {
		t.Fatalf("recorded: %+v %v", e, err)
	}

	c = fakeCall(t, click, &ops.ClickIn{Target: "e1"}, nil)
	o := run(c, refusal(apitype.HumanControl))
	if e, err := l.Get(context.Background(), o.err.OperationID); err != nil || e.State != wire.OpNotExecuted || e.Code != "HUMAN_CONTROL" {
		t.Fatalf("a new id's row: %+v %v", e, err)
	}

	before, _ := l.List(context.Background(), ledger.Filter{})
	for _, tc := range []struct {
		c   *call
		err *apitype.Error
	}{
		{fakeCall(t, click, nil, nil), refusal(apitype.BadInput)},
		{fakeCall(t, click, nil, nil), refusal(apitype.DuplicateOperation)},
		{fakeCall(t, describe[ops.SnapshotIn]("snapshot", ops.Read), nil, nil), refusal(apitype.HumanControl)},
		{func() *call { c := fakeCall(t, click, nil, nil); c.reserved = true; return c }(), refusal(apitype.TakenOver)},
		{fakeCall(t, click, nil, nil), refusal(apitype.Timeout).Executed()},
	} {
		run(tc.c, tc.err)
	}
	if after, _ := l.List(context.Background(), ledger.Filter{}); len(after) != len(before) {
		t.Fatalf("rows %d, then %d: a mistake, a read, a reserved write or an unknown outcome got a row here", len(before), len(after))
	}
}
