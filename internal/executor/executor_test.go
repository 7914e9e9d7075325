package executor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ops"
)

// trace records the stages a call went through, in order.
type trace struct {
	mu    sync.Mutex // guards steps and unsettled: a settle may be retried in the background
	steps []string
	fail  map[string]error // stage → its refusal
	// unsettled is how many settles fail before one succeeds.
	unsettled int
}

func (tr *trace) step(name string) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.steps = append(tr.steps, name)
	return tr.fail[name]
}

// seen is the steps so far, one string.
func (tr *trace) seen() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return strings.Join(tr.steps, " ")
}

func (tr *trace) Allow(_ context.Context, w guard.Write) (time.Duration, error) {
	return 0, tr.step("policy:" + w.Op)
}
func (tr *trace) Check(_ context.Context, w guard.Write) error { return tr.step("gate:" + w.Op) }
func (tr *trace) Reserve(_ context.Context, w guard.Write) error {
	return tr.step("reserve:" + w.Op)
}
func (tr *trace) Refuse(_ context.Context, w guard.Write, e *apitype.Error) {
	tr.step("refuse:" + w.Op + ":" + string(e.Code))
}
func (tr *trace) Settle(_ context.Context, w guard.Write, e *apitype.Error) error {
	outcome := "executed"
	if e != nil {
		outcome = "failed"
	}
	tr.step("settle:" + w.Op + ":" + outcome)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.unsettled > 0 {
		tr.unsettled--
		return errors.New("disk full")
	}
	return nil
}

type nothing struct{}

// fakeExecutor runs fake operations that never start a browser.
func fakeExecutor(t *testing.T, tr *trace) *Executor {
	t.Helper()
	run := func(name string, err error) func(ctx context.Context, _ *handlers.Deps, _ *nothing) (*nothing, error) {
		return func(ctx context.Context, _ *handlers.Deps, _ *nothing) (*nothing, error) {
			tr.step("run:" + name)
			if name == "slow" {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return &nothing{}, err
		}
	}
	hs := map[string]handlers.Handler{}
	mk := func(name string, kind ops.Kind, err error) *ops.Op {
		o := ops.Describe[nothing, nothing](name, name, kind, time.Second)
		o.NoBrowser = true
		hs[name] = handlers.Func(run(name, err))
		return o
	}
	reg := ops.NewRegistry(
		mk("look", ops.Read, nil), mk("poke", ops.Write, nil), mk("break", ops.Write, errors.New("boom")),
		mk("slow", ops.Write, nil),
	)
	return New(Config{Home: t.TempDir(), Chromium: "/nonexistent", Registry: reg, Handlers: hs, Policy: tr, Gate: tr, Ledger: tr})
}

// A write passes policy, then the gate, then the ledger's reservation,
// runs and is settled; a read passes none of them.
func TestPipelineOrder(t *testing.T) {
	tr := &trace{}
	x := fakeExecutor(t, tr)
	if _, err := x.Do(context.Background(), Request{Op: "poke"}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Do(context.Background(), Request{Op: "look"}); err != nil {
		t.Fatal(err)
	}
	want := "policy:poke gate:poke reserve:poke run:poke settle:poke:executed run:look"
	if got := strings.Join(tr.steps, " "); got != want {
		t.Errorf("stages:\n got %s\nwant %s", got, want)
	}
}

// A write whose outcome the ledger cannot record (a full disk) is not
// reported plainly ok: the caller is told its record reads as unknown,
// and settling is tried again until it succeeds.
func TestUnsettledWriteIsSaidAndRetried(t *testing.T) {
	tr := &trace{unsettled: 2}
	x := fakeExecutor(t, tr)
	res, err := x.Do(context.Background(), Request{Op: "poke"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Warning, "could not record this write's outcome (disk full)") || !strings.Contains(res.Warning, "reads as unknown") {
		t.Errorf("the reply's warning: %q", res.Warning)
	}
	// The retries back off from 250 ms: polled every 10 ms, bounded.
	want := "policy:poke gate:poke reserve:poke run:poke settle:poke:executed settle:poke:executed settle:poke:executed"
	deadline := time.Now().Add(10 * time.Second)
	for tr.seen() != want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := tr.seen(); got != want {
		t.Errorf("stages:\n got %s\nwant %s", got, want)
	}
	// A write whose run failed carries the warning in its error.
	tr.mu.Lock()
	tr.unsettled = 1
	tr.mu.Unlock()
	_, err = x.Do(context.Background(), Request{Op: "break"})
	if e, ok := apitype.As(err); !ok || !strings.Contains(e.Message, "reads as unknown until loupe records it") {
		t.Errorf("a failed write whose outcome was not recorded: %v", err)
	}
}

// A refusal at any stage stops the write there: nothing later runs, the
// refusal reaches the caller as it was, naming the operation and the
// ledger row that records it (not executed, with its code).
func TestPipelineRefusals(t *testing.T) {
	for stage, want := range map[string]string{
		"policy:poke":  "policy:poke refuse:poke:DENIED",
		"gate:poke":    "policy:poke gate:poke refuse:poke:DENIED",
		"reserve:poke": "policy:poke gate:poke reserve:poke refuse:poke:DENIED",
	} {
		refusal := apitype.Errorf(apitype.Denied, "no")
		tr := &trace{fail: map[string]error{stage: refusal}}
		_, err := fakeExecutor(t, tr).Do(context.Background(), Request{Op: "poke"})
		e, ok := apitype.As(err)
		if !ok || e.Code != apitype.Denied || !e.NotExecuted || e.Op != "poke" || e.OperationID == "" {
			t.Errorf("refused at %s: %v", stage, err)
		}
		if got := strings.Join(tr.steps, " "); got != want {
			t.Errorf("refused at %s: stages %s, want %s", stage, got, want)
		}
	}
}

// A write that fails after it ran is settled as failed and is not
// "not executed"; a deadline is TIMEOUT with the deadline that ran out.
func TestPipelineFailures(t *testing.T) {
	tr := &trace{}
	x := fakeExecutor(t, tr)
	_, err := x.Do(context.Background(), Request{Op: "break"})
	e, ok := apitype.As(err)
	if !ok || e.Code != apitype.Internal || e.NotExecuted || e.Op != "break" {
		t.Errorf("failed write: %+v", err)
	}
	if !strings.Contains(strings.Join(tr.steps, " "), "settle:break:failed") {
		t.Errorf("the failed write was not settled: %v", tr.steps)
	}
	_, err = x.Do(context.Background(), Request{Op: "slow", OpRequest: apitype.OpRequest{TimeoutMS: 30}})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.Timeout || e.TimeoutMS != 30 || e.NotExecuted {
		t.Errorf("deadline: %+v", err)
	}
	// Bad input stops before every stage.
	tr.steps = nil
	if _, err := x.Do(context.Background(), Request{Op: "poke", OpRequest: apitype.OpRequest{Input: []byte(`{"x":1}`)}}); err == nil {
		t.Error("an unknown field was accepted")
	}
	if _, err := x.Do(context.Background(), Request{Op: "nope"}); err == nil {
		t.Error("an unknown op was accepted")
	}
	if len(tr.steps) != 0 {
		t.Errorf("bad input went through %v", tr.steps)
	}
}
