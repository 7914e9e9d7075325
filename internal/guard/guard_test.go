package guard

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/wire"
)

func wantCode(t *testing.T, err error, code apitype.Code) *apitype.Error {
	t.Helper()
	var e *apitype.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	return e
}

// TestWithoutRulesOrLedger: without rules every write is allowed, and
// without a ledger none is recorded.
func TestWithoutRulesOrLedger(t *testing.T) {
	if waited, err := (AllowAll{}).Allow(context.Background(), Write{}); waited != 0 || err != nil {
		t.Fatalf("AllowAll: %v %v", waited, err)
	}
	if err := (NoLedger{}).Reserve(context.Background(), Write{ID: "op-1"}); err != nil {
		t.Fatal(err)
	}
	if err := (NoLedger{}).Settle(context.Background(), Write{ID: "op-1"}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestDiskLedger: a write is reserved with its input (a secret's text
// masked), a reused id is DUPLICATE_OPERATION naming the first's outcome
// with the step that shows it, the outcome is settled once (a second
// settle of a settled row stands), and a refusal is a row not executed.
func TestDiskLedger(t *testing.T) {
	l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ledger.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d := DiskLedger{Store: l, Log: slog.New(slog.NewTextHandler(t.Output(), nil))}
	ctx := context.Background()
	w := Write{ID: "op-1", Op: "fill", Action: ops.ActInput, Session: "default", Page: "s1", Surface: "s1",
		Input: &ops.FillIn{Target: "e4", Text: "hunter2"}, Secret: true}
	if err := d.Reserve(ctx, w); err != nil {
		t.Fatal(err)
	}
	e, err := l.Get(ctx, "op-1")
	if err != nil || e.State != wire.OpReserved || strings.Contains(e.Input, "hunter2") || !strings.Contains(e.Input, "e4") {
		t.Fatalf("reserved %+v, %v", e, err)
	}
	dup := wantCode(t, d.Reserve(ctx, w), apitype.DuplicateOperation)
	if len(dup.Recovery) != 1 || dup.Recovery[0].Op != "ops show" {
		t.Fatalf("duplicate's recovery: %+v", dup.Recovery)
	}
	if err := d.Settle(ctx, w, &apitype.Error{Code: apitype.Timeout, Message: "late"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Settle(ctx, w, nil); err != nil {
		t.Fatalf("a second settle: %v", err)
	}
	if e, _ := l.Get(ctx, "op-1"); e.State != wire.OpUnknown || e.Code != string(apitype.Timeout) {
		t.Fatalf("settled %+v", e)
	}
	d.Refuse(ctx, Write{ID: "op-2", Op: "click", Session: "default"}, &apitype.Error{Code: apitype.Denied, Message: "no", NotExecuted: true})
	if e, _ := l.Get(ctx, "op-2"); e.State != wire.OpNotExecuted || e.Code != string(apitype.Denied) {
		t.Fatalf("refused %+v", e)
	}
}

// TestRulesPolicy: the rules deny a write (DENIED naming the rule), allow
// it, or hold it for a person, who sees what it will send with a secret
// masked.
func TestRulesPolicy(t *testing.T) {
	rules, err := policy.Load(filepath.Join(t.TempDir(), "policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []policy.Rule{{Key: "input", Decision: policy.Ask}, {Key: "eval", Decision: policy.Deny}} {
		if err := rules.Set(r); err != nil {
			t.Fatal(err)
		}
	}
	q := approvals.New(events.New())
	p := RulesPolicy{Rules: rules, Queue: q}
	ctx := context.Background()
	if e := wantCode(t, func() error { _, err := p.Allow(ctx, Write{Op: "eval", Action: ops.ActEval}); return err }(), apitype.Denied); !strings.Contains(e.Message, "eval") {
		t.Fatalf("denied without its rule: %v", e)
	}
	if _, err := p.Allow(ctx, Write{Op: "open", Action: ops.ActNavigate}); err != nil {
		t.Fatalf("allowed: %v", err)
	}
	seen := make(chan wire.Approval, 1)
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) { // a bounded poll: the write lists itself before it waits
			if l := q.List(); len(l) > 0 {
				seen <- l[0]
				_, _ = q.Answer(l[0].ID, true)
				return
			}
			time.Sleep(time.Millisecond)
		}
		close(seen)
	}()
	w := Write{ID: "op-3", Op: "fill", Action: ops.ActInput, Input: &ops.FillIn{Target: "e4", Text: "hunter2"}, Secret: true}
	if _, err := p.Allow(ctx, w); err != nil {
		t.Fatalf("approved: %v", err)
	}
	a, ok := <-seen
	if !ok {
		t.Fatal("the write was never held")
	}
	var in map[string]any
	if err := json.Unmarshal(a.Input, &in); err != nil || strings.Contains(string(a.Input), "hunter2") || a.OperationID != "op-3" {
		t.Fatalf("held as %+v (input %s), %v", a, a.Input, err)
	}
}

// TestGrantGate: a task's write acts only where no other live task owns
// the tab — the tab it acts in (unless it works on the session) and the
// tab it names; a write of no task passes.
func TestGrantGate(t *testing.T) {
	r := grants.New("1", 0, nil)
	if _, err := r.Use("default", "other", "", false); err != nil {
		t.Fatal(err)
	}
	r.Claim("default", "other", "s2")
	g := GrantGate{Grants: r}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		w    Write
		code apitype.Code
	}{
		{"own tab", Write{Session: "default", Task: "cli", Page: "s1"}, ""},
		{"another task's tab", Write{Session: "default", Task: "cli", Page: "s2"}, apitype.NoGrant},
		{"on the session", Write{Session: "default", Task: "cli", Page: "s2", SessionWide: true}, ""},
		{"naming another task's tab", Write{Session: "default", Task: "cli", Page: "s1", SessionWide: true, Target: "s2"}, apitype.NoGrant},
		{"no task", Write{Session: "default", Page: "s2"}, ""},
	} {
		err := g.Check(ctx, tc.w)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantCode(t, err, tc.code)
	}
	if err := NoGrant(errors.New("plain")); err == nil || err.Error() != "plain" {
		t.Fatalf("a plain error was changed: %v", err)
	}
}
