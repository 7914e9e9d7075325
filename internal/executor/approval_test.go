package executor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/approvals"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/policy"
)

// answerFirst approves or denies the first write that waits in q.
func answerFirst(t *testing.T, q *approvals.Queue, approve bool) {
	t.Helper()
	go func() {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) { // a bounded poll: the write lists itself before it waits
			if l := q.List(); len(l) > 0 {
				_, _ = q.Answer(l[0].ID, approve)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
}

// TestApprovalStage: the rules allow a write, deny it (DENIED, naming the
// rule) or hold it for a person (approved: it goes on, having waited;
// denied: DENIED); a person's commands and calls are not theirs to
// approve, and reads pass.
func TestApprovalStage(t *testing.T) {
	rules, err := policy.Load(t.TempDir() + "/policy.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []policy.Rule{{Key: "input", Decision: policy.Ask}, {Key: "eval", Decision: policy.Deny}, {Key: "navigate", Origin: "https://*.bank.test", Decision: policy.Deny}} {
		if err := rules.Set(r); err != nil {
			t.Fatal(err)
		}
	}
	q := approvals.New(events.New())
	st := approvalStage{guard.RulesPolicy{Rules: rules, Queue: q}}
	mk := func(op *ops.Op, w guard.Write) *call {
		c := fakeCall(t, op, nil, nil)
		c.write = w
		return c
	}
	click := describe[nothing]("click", ops.Write)
	c := mk(describe[nothing]("eval", ops.Write, as(ops.ActEval)), guard.Write{Op: "eval", Action: ops.ActEval})
	if _, err := enter(t, st, c); !strings.Contains(wantCode(t, err, apitype.Denied).Message, "eval") {
		t.Fatalf("denied without its rule: %v", err)
	}
	wantCode(t, func() error {
		_, err := enter(t, st, mk(describe[nothing]("open", ops.Write, as(ops.ActNavigate)), guard.Write{Op: "open", Action: ops.ActNavigate, Origin: "https://my.bank.test"}))
		return err
	}(), apitype.Denied)
	if _, err := enter(t, st, mk(describe[nothing]("open", ops.Write, as(ops.ActNavigate)), guard.Write{Op: "open", Action: ops.ActNavigate, Origin: "https://shop.test"})); err != nil {
		t.Fatalf("allowed: %v", err)
	}
	answerFirst(t, q, true)
	c = mk(click, guard.Write{Op: "click", Action: ops.ActInput, Session: "default", Page: "s1"})
	if _, err := enter(t, st, c); err != nil || c.approvedAfter <= 0 {
		t.Fatalf("approved: waited %v, %v", c.approvedAfter, err)
	}
	answerFirst(t, q, false)
	wantCode(t, func() error {
		_, err := enter(t, st, mk(click, guard.Write{Op: "click", Action: ops.ActInput}))
		return err
	}(), apitype.Denied)
	for _, c := range []*call{mk(describe[nothing]("takeover", ops.Write, as(ops.ActControl)), guard.Write{Action: ops.ActControl}),
		mk(describe[nothing]("snapshot", ops.Read), guard.Write{}), mk(click, guard.Write{Op: "click", Action: ops.ActInput})} {
		c.req.Person = c.op.Name == "click"
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := st.enter(ctx, c)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c.op.Name, err)
		}
	}
}
