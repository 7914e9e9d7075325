package executor

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/wire"
)

// approvals are the writes waiting for a person's answer. Nothing of a
// waiting write has been dispatched.
type approvals struct {
	events  *events.Bus
	mu      sync.Mutex
	seq     int
	pending map[string]*pending
}

type pending struct {
	a      wire.Approval
	answer chan error // nil: approved
}

// ask holds a write until a person answers, the approval timeout passes
// (APPROVAL_TIMEOUT), the caller gives up, or the tab is taken over
// (TAKEN_OVER); each is not executed.
func (q *approvals) ask(ctx context.Context, w Write, timeout time.Duration, rule string) (time.Duration, error) {
	q.mu.Lock()
	q.seq++
	p := &pending{answer: make(chan error, 1), a: wire.Approval{
		ID: "a" + strconv.Itoa(q.seq), OperationID: w.ID, Op: w.Op, Action: string(w.Action), Session: w.Session,
		Client: w.Client, SurfaceID: w.Surface, Page: w.Page, Origin: w.Origin, Digest: w.Digest, Rule: rule, Asked: time.Now(),
		Task: w.Task, Target: w.Element,
	}}
	if q.pending == nil {
		q.pending = map[string]*pending{}
	}
	q.pending[p.a.ID] = p
	q.mu.Unlock()
	ev := events.Event{Session: w.Session, Task: w.Task, SurfaceID: w.Page, OperationID: w.ID, Op: w.Op, ApprovalID: p.a.ID, URL: w.Origin}
	ev.Kind = events.ApprovalAsked
	q.events.Publish(ev)
	ev.Kind, ev.State = events.ApprovalAnswered, "approved"
	defer func() {
		q.mu.Lock()
		delete(q.pending, p.a.ID)
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
		return 0, apitype.Errorf(apitype.ApprovalTimeout, "%s waited %s for a person's approval (%s); it was not sent", w.Op, timeout, p.a.ID)
	case <-ctx.Done():
		ev.State = "given_up"
		return 0, apitype.Errorf(apitype.ApprovalTimeout, "%s was given up while it waited for approval %s; it was not sent", w.Op, p.a.ID)
	}
}

// inputFields are what the stages read of a write's input, by the wire
// names every operation uses: the element it names ("ref", a ref or a
// locator) and the text it types ("text"). The input is read once.
func inputFields(in any) (element, text string) {
	b, err := json.Marshal(in)
	if err != nil {
		return "", ""
	}
	var f struct {
		Ref  string `json:"ref"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(b, &f)
	return f.Ref, f.Text
}

// List returns the waiting writes, oldest first.
func (q *approvals) List() []wire.Approval {
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
func (q *approvals) Answer(id string, approve bool) (wire.Approval, error) {
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

// takenOver ends the waiting writes of a tab: a person has it now.
func (q *approvals) takenOver(page string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for id, p := range q.pending {
		if p.a.Page == page {
			delete(q.pending, id)
			p.answer <- apitype.Errorf(apitype.TakenOver, "a person took tab %s over while %s waited for approval; it was not sent", page, p.a.Op)
		}
	}
}

// control is the take-over control of a session, which also ends the
// writes of a tab waiting for approval when a person takes it.
type control struct {
	handlers.Control
	q       *approvals
	session string
}

func (c control) TakeOver(page string) int64 {
	e := c.Control.TakeOver(page)
	c.q.handedOver(c.session, page, e, "")
	return e
}

// handedOver ends the writes of a tab waiting for approval and tells the
// events that a person has it now (state says why, "" for a take-over
// they asked for).
func (q *approvals) handedOver(session, page string, epoch int64, state string) {
	q.takenOver(page)
	q.events.Publish(events.Event{Kind: events.TabTakenOver, Session: session, SurfaceID: page, Epoch: epoch, State: state})
}

// personInput hands a tab to the person whose own input loupe saw in it
// (headed and attached browsers; see package engine/person), as `loupe
// takeover` would: at once, ending the agents' waiting and queued writes.
func (x *Executor) personInput(s *sessions.Session, t *engine.Surface) {
	page := t.PageID()
	if mode, _ := s.Mode(page); mode == sessions.ModeHuman {
		return
	}
	x.waiting.handedOver(s.Name(), page, s.TakeOver(page), "person_input")
}

func (c control) Resume(page string) (int64, bool) {
	e, ok := c.Control.Resume(page)
	if ok {
		c.q.events.Publish(events.Event{Kind: events.TabResumed, Session: c.session, SurfaceID: page, Epoch: e})
	}
	return e, ok
}
