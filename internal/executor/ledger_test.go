package executor

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

func openLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestLedgerAndSettleStages: a write is reserved before it runs (a used
// id is DUPLICATE_OPERATION naming the first's outcome) and settled on
// the way back — executed, not executed, or unknown — with an op.settled
// event; what was typed into a password field is kept nowhere; reads
// leave no row.
func TestLedgerAndSettleStages(t *testing.T) {
	l := openLedger(t)
	bus := events.New()
	sub := bus.Subscribe(16, -1)
	defer sub.Close()
	disk := guard.DiskLedger{Store: l, Log: testLog(t)}
	fill := describe[ops.FillIn]("fill", ops.Write)
	for _, tc := range []struct {
		id     string
		secret bool
		err    *apitype.Error
		state  wire.OpState
	}{
		{"op-ok", false, nil, wire.OpExecuted},
		{"op-no", false, &apitype.Error{Code: apitype.Denied, Message: "no", NotExecuted: true}, wire.OpNotExecuted},
		{"op-maybe", true, &apitype.Error{Code: apitype.Timeout, Message: "late"}, wire.OpUnknown},
	} {
		in := &ops.FillIn{Target: "e1", Text: "hunter2"}
		c := fakeCall(t, fill, in, &fakePage{id: "s1"})
		c.write = guard.Write{ID: tc.id, Op: "fill", Session: "default", Task: "cli", Page: "s1", Input: in, Secret: tc.secret}
		if _, err := enter(t, ledgerStage{disk}, c); err != nil {
			t.Fatal(err)
		}
		e, err := l.Get(context.Background(), tc.id)
		if err != nil || e.State != wire.OpReserved {
			t.Fatalf("%s reserved: %+v, %v", tc.id, e, err)
		}
		leave, _ := enter(t, settleStage{disk, bus, nil}, c)
		leave(&outcome{err: tc.err})
		if e, _ = l.Get(context.Background(), tc.id); e.State != tc.state {
			t.Fatalf("%s settled %s, want %s", tc.id, e.State, tc.state)
		}
		if strings.Contains(e.Input, "hunter2") == tc.secret {
			t.Fatalf("%s kept input %q (secret %v)", tc.id, e.Input, tc.secret)
		}
		<-sub.Ready()
		evs := sub.Next()
		if len(evs) != 1 || evs[0].Kind != events.OpSettled || evs[0].State != string(tc.state) || evs[0].Unknown != (tc.state == wire.OpUnknown) || evs[0].SurfaceID != "s1" {
			t.Fatalf("%s events %+v", tc.id, evs)
		}
	}
	c := fakeCall(t, fill, &ops.FillIn{Target: "e1"}, nil)
	c.write = guard.Write{ID: "op-ok", Op: "fill", Session: "default"}
	_, err := enter(t, ledgerStage{disk}, c)
	if e := wantCode(t, err, apitype.DuplicateOperation); !strings.Contains(e.Message, "executed") {
		t.Fatalf("duplicate: %v", e)
	}
	r := fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, nil)
	if leave, err := enter(t, ledgerStage{disk}, r); leave != nil || err != nil {
		t.Fatalf("a read was reserved: %v", err)
	}
	if leave, _ := enter(t, settleStage{disk, bus, nil}, r); leave != nil {
		t.Fatal("a read is settled")
	}
	// A ledger that cannot write refuses the write: nothing goes out that
	// loupe cannot account for.
	l.Close()
	c.write.ID = "op-late"
	wantCode(t, func() error { _, err := enter(t, ledgerStage{disk}, c); return err }(), apitype.Internal)
}

// testLog is a logger that writes into the test's output.
func testLog(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }
