package approvals

import (
	"context"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/wire"
)

// asked starts an Ask in the background and returns its result channel
// once the question is listed.
func asked(t *testing.T, q *Queue, a wire.Approval, timeout time.Duration) <-chan error {
	t.Helper()
	before := len(q.List())
	done := make(chan error, 1)
	go func() {
		_, err := q.Ask(context.Background(), a, timeout, "rule")
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(q.List()) == before { // a bounded poll: Ask lists it before it waits
		if time.Now().After(deadline) {
			t.Fatal("the question was not listed within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
	return done
}

func wantCode(t *testing.T, err error, code apitype.Code) {
	t.Helper()
	if e, ok := apitype.As(err); !ok || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

// TestAnswers: an approval lets the write go, a denial refuses it
// (DENIED), an unknown id is BAD_INPUT, and each question and answer is
// an event.
func TestAnswers(t *testing.T) {
	bus := events.New()
	sub := bus.Subscribe(16, -1)
	defer sub.Close()
	q := New(bus)
	yes := asked(t, q, wire.Approval{Op: "click", Session: "s", Page: "s1"}, time.Minute)
	no := asked(t, q, wire.Approval{Op: "fill", Session: "s", Page: "s1"}, time.Minute)
	list := q.List()
	if len(list) != 2 || list[0].Op != "click" || list[0].ID == "" || list[0].Rule != "rule" || list[0].Asked.IsZero() {
		t.Fatalf("listed %+v", list)
	}
	if _, err := q.Answer(list[0].ID, true); err != nil {
		t.Fatal(err)
	}
	if err := <-yes; err != nil {
		t.Fatalf("approved: %v", err)
	}
	if _, err := q.Answer(list[1].ID, false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-no, apitype.Denied)
	_, err := q.Answer(list[1].ID, true)
	wantCode(t, err, apitype.BadInput)
	var states []string
	for len(states) < 4 {
		<-sub.Ready()
		for _, e := range sub.Next() {
			states = append(states, e.Kind+":"+e.State)
		}
	}
	want := []string{"approval.asked:", "approval.asked:", "approval.answered:approved", "approval.answered:denied"}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("events %v, want %v", states, want)
		}
	}
}

// TestTakenOverEndsOnlyThatSessionsTab: surface ids are per session, so
// a take-over of s1 in one session leaves another session's s1 waiting.
func TestTakenOverEndsOnlyThatSessionsTab(t *testing.T) {
	q := New(events.New())
	a := asked(t, q, wire.Approval{Op: "click", Session: "a", Page: "s1"}, time.Minute)
	b := asked(t, q, wire.Approval{Op: "click", Session: "b", Page: "s1"}, time.Minute)
	q.HandedOver("a", "s1", 2, "")
	wantCode(t, <-a, apitype.TakenOver)
	if l := q.List(); len(l) != 1 || l[0].Session != "b" {
		t.Fatalf("still waiting: %+v", l)
	}
	q.TakenOver("b", "s1")
	wantCode(t, <-b, apitype.TakenOver)
}

// TestTimeoutAndGivingUp: a write nobody answers times out, one whose
// caller gives up ends; both APPROVAL_TIMEOUT, and neither stays listed.
func TestTimeoutAndGivingUp(t *testing.T) {
	q := New(events.New())
	_, err := q.Ask(context.Background(), wire.Approval{Op: "click"}, time.Millisecond, "")
	wantCode(t, err, apitype.ApprovalTimeout)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = q.Ask(ctx, wire.Approval{Op: "click"}, time.Minute, "")
	wantCode(t, err, apitype.ApprovalTimeout)
	if l := q.List(); len(l) != 0 {
		t.Fatalf("still listed: %+v", l)
	}
}
