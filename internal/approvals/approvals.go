// Package approvals holds the writes waiting for a person's answer: each
// waits, with nothing of it dispatched, until a person approves or denies
// it, the approval timeout passes, its caller gives up, or a person takes
// its tab over — and every way it ends is an event.
package approvals

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Queue is the writes waiting for a person. It is safe for concurrent
// use; the zero value is not (use New).
type Queue struct {
	events *events.Bus
	// mu guards the fields below.
	mu      sync.Mutex
	seq     int
	pending map[string]*pending // by approval id
}

type pending struct {
	a      wire.Approval
	answer chan error // nil: approved; buffered, answered once
}

// New returns an empty queue that tells bus of every question and answer.
func New(bus *events.Bus) *Queue {
	return &Queue{events: bus, pending: map[string]*pending{}}
}

// Ask holds a write, as a describes it (its ID, Rule and Asked are set
// here), until a person answers, the timeout passes (APPROVAL_TIMEOUT),
// ctx ends (APPROVAL_TIMEOUT: given up), or its tab is taken over
// (TAKEN_OVER); each refusal is not executed. It returns how long it
// waited for an approval.
func (q *Queue) Ask(ctx context.Context, a wire.Approval, timeout time.Duration, rule string) (time.Duration, error) {
	q.mu.Lock()
	q.seq++
	a.ID, a.Rule, a.Asked = "a"+strconv.Itoa(q.seq), rule, time.Now()
	p := &pending{a: a, answer: make(chan error, 1)}
	q.pending[a.ID] = p
	q.mu.Unlock()
	ev := events.Event{Session: a.Session, Task: a.Task, SurfaceID: a.Page, OperationID: a.OperationID, Op: a.Op, ApprovalID: a.ID, URL: a.Origin}
	ev.Kind = events.ApprovalAsked
	q.events.Publish(ev)
	ev.Kind, ev.State = events.ApprovalAnswered, "approved"
	defer func() {
		q.mu.Lock()
		delete(q.pending, a.ID)
		q.mu.Unlock()
		q.events.Publish(ev)
	}()
	start := time.Now()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-p.answer:
		if e, ok := apitype.As(err); ok {
			ev.State = map[apitype.Code]string{apitype.Denied: "denied", apitype.TakenOver: "taken_over"}[e.Code]
		}
		return time.Since(start), err
	case <-timer.C:
		ev.State = "timed_out"
		return 0, apitype.Errorf(apitype.ApprovalTimeout, "%s waited %s for a person's approval (%s); it was not sent", a.Op, timeout, a.ID)
	case <-ctx.Done():
		ev.State = "given_up"
		return 0, apitype.Errorf(apitype.ApprovalTimeout, "%s was given up while it waited for approval %s; it was not sent", a.Op, a.ID)
	}
}

// List returns the waiting writes, oldest first.
func (q *Queue) List() []wire.Approval {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]wire.Approval, 0, len(q.pending))
	for _, p := range q.pending {
		out = append(out, p.a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asked.Before(out[j].Asked) })
	return out
}

// Answer approves or denies a waiting write.
func (q *Queue) Answer(id string, approve bool) (wire.Approval, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	p := q.pending[id]
	if p == nil {
		return wire.Approval{}, apitype.Errorf(apitype.BadInput, "no write is waiting for approval %q", id).
			Fix("list the waiting ones ({1})", apitype.Step{Op: "approvals"})
	}
	delete(q.pending, id)
	if approve {
		p.answer <- nil
	} else {
		p.answer <- apitype.Errorf(apitype.Denied, "a person denied %s (%s); it was not sent", p.a.Op, id)
	}
	return p.a, nil
}

// TakenOver ends the waiting writes of a session's tab: a person has it
// now. Tabs are named by their surface id, which only its session's
// numbering makes unique.
func (q *Queue) TakenOver(session, page string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for id, p := range q.pending {
		if p.a.Session == session && p.a.Page == page {
			delete(q.pending, id)
			p.answer <- apitype.Errorf(apitype.TakenOver, "a person took tab %s over while %s waited for approval; it was not sent", page, p.a.Op)
		}
	}
}

// HandedOver ends the writes of a tab waiting for approval and tells the
// events that a person has it now (state says why: "" for a take-over
// they asked for, person_input when loupe saw their own input).
func (q *Queue) HandedOver(session, page string, epoch int64, state string) {
	q.TakenOver(session, page)
	q.events.Publish(events.Event{Kind: events.TabTakenOver, Session: session, SurfaceID: page, Epoch: epoch, State: state})
}
