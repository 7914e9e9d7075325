package engine

import (
	"context"

	"github.com/loupe-dev/loupe/internal/cdp"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
)

// The session's event log (package eventlog) holds the console messages,
// network requests and dialogs of every surface; the page sessions' taps
// feed it and name each record's surface.

// Events is the session's event log: its console, network and dialog
// records, and the dialog policy.
func (b *Browser) Events() *eventlog.Log { return b.events }

// recordEvents is the tap that feeds the event log. It runs on the reader
// goroutine, after onContextEvent has seen every context created before.
func (t *Surface) recordEvents(s *cdp.Session, ev cdp.Event) {
	t.b.events.Record(ev, eventSource{t, s})
}

// eventSource names the surfaces of one session's records: a record names
// its surface only when the protocol says where it came from, never by a
// URL or a title.
type eventSource struct {
	t *Surface
	s *cdp.Session
}

func (e eventSource) ContextSurface(id int64) string {
	e.t.mu.Lock()
	defer e.t.mu.Unlock()
	if f, ok := e.t.contexts[ctxKey{e.s, id}]; ok {
		return e.t.surfaceOf(f)
	}
	return ""
}

func (e eventSource) FrameSurface(frameID string) string {
	e.t.mu.Lock()
	defer e.t.mu.Unlock()
	return e.t.surfaceOf(frameID)
}

// surfaceOf is the id of the surface a frame belongs to, also after the
// frame has gone. Caller holds t.mu.
func (p *pageState) surfaceOf(frameID string) string {
	if frameID == p.TargetID {
		return p.tab.ID
	}
	if s := p.frameSurf[frameID]; s != nil {
		return s.ID
	}
	return p.pastSurf[frameID]
}

// answerDialog answers a JavaScript dialog as the event log decides
// (eventlog.Log.AnswerDialog) and records it; the dialog that makes a
// flood (see flood.go) is held open instead.
func (t *Surface) answerDialog(ctx context.Context, s *cdp.Session, ev cdp.Event, flood *eventlog.FloodMeter) {
	a := t.b.events.AnswerDialog(ev, eventSource{t, s}, flood)
	if a.Hold {
		t.held.Hold(s)
	} else if err := s.Call(ctx, "Page.handleJavaScriptDialog", a.Params, nil); err != nil {
		a.Record.Action = "failed: " + err.Error()
	}
	t.b.events.AddDialog(a.Record)
}
