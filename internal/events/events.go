// Package events is loupe's stream of what happens to sessions, tabs and
// writes — tabs opened, changed, closed and crashed, take-overs and resumes,
// approvals asked and answered, writes settled, downloads, browsers gone —
// for `loupe events`, the dashboard and scripts.
//
// A Bus never blocks its publishers: each subscriber has a bounded buffer,
// and one that falls behind loses the oldest events it has not read, told
// so by a "dropped" event with the count when it reads again. The bus
// keeps the last events in a ring, so a subscriber may start from a
// sequence number it has seen (Since) without missing what came between.
package events

import (
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/safetext"
)

// Kinds of events.
const (
	TabOpened        = "tab.opened"
	TabClosed        = "tab.closed"
	TabChanged       = "tab.changed" // its address or title changed, or it stopped loading
	TabCrashed       = "tab.crashed"
	TabTakenOver     = "tab.taken_over"
	TabResumed       = "tab.resumed"
	ApprovalAsked    = "approval.asked"
	ApprovalAnswered = "approval.answered"
	OpSettled        = "op.settled"
	DownloadStarted  = "download.started"
	DownloadProgress = "download.progress"
	DownloadDone     = "download.finished"
	FileChooser      = "file_chooser.opened" // a page asks for files: answer with an upload without a target
	BrowserGone      = "browser.gone"
	TaskEnded        = "task.ended"
	SettingsChanged  = "settings.changed" // the settings or the approval policy changed, or a partition was cleared
	Dropped          = "dropped"
)

// Event is one thing that happened. Fields a kind has no use for are
// empty; every string a page controls (URL, Title, File) is cut to
// MaxText and made safe to print on one line (package safetext).
type Event struct {
	Seq         int64     `json:"seq"`
	Time        time.Time `json:"time"`
	Kind        string    `json:"kind"`
	Session     string    `json:"session,omitempty"`
	Task        string    `json:"task,omitempty"`
	SurfaceID   string    `json:"surface_id,omitempty"`
	OperationID string    `json:"operation_id,omitempty"`
	Op          string    `json:"op,omitempty"`
	ApprovalID  string    `json:"approval_id,omitempty"`
	// State is a settled write's outcome (executed, not_executed,
	// unknown), or an approval's answer (approved, denied, timed_out,
	// taken_over, given_up).
	State string `json:"state,omitempty"`
	// Unknown flags a write whose outcome is unknown: a person should
	// look at the page before anything is done again.
	Unknown bool   `json:"unknown,omitempty"`
	Code    string `json:"code,omitempty"`
	Epoch   int64  `json:"epoch,omitempty"`
	URL     string `json:"url,omitempty"`
	Title   string `json:"title,omitempty"`
	File    string `json:"file,omitempty"`
	// Count is, for a dropped event, how many events the subscriber lost.
	Count int64 `json:"count,omitempty"`
	// Bytes and Total are a download's bytes received so far and in all
	// (0: not known).
	Bytes int64 `json:"bytes,omitempty"`
	Total int64 `json:"total,omitempty"`
}

// MaxText bounds each page-controlled string of an event.
const MaxText = 512

// ring is how many recent events the bus keeps for Since.
const ring = 1024

// Bus fans events out to subscribers. The zero value is not ready: use
// New. It is safe for concurrent use.
type Bus struct {
	mu     sync.Mutex
	seq    int64
	recent []Event // the last ring events, oldest first
	subs   map[*Sub]struct{}
	now    func() time.Time
}

// New returns an empty bus.
func New() *Bus { return &Bus{subs: map[*Sub]struct{}{}, now: time.Now} }

// Publish stamps an event with its sequence number and time and hands it
// to every subscriber. It never blocks. A nil bus drops it.
func (b *Bus) Publish(e Event) {
	if b == nil {
		return
	}
	e.URL, e.Title, e.File = cut(e.URL), cut(e.Title), cut(e.File)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Seq, e.Time = b.seq, b.now()
	if len(b.recent) == ring {
		copy(b.recent, b.recent[1:])
		b.recent = b.recent[:ring-1]
	}
	b.recent = append(b.recent, e)
	for s := range b.subs {
		s.push(e)
	}
}

// Last is the sequence number of the latest event (0 before the first).
func (b *Bus) Last() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.seq
}

// Subscribe starts a subscription with room for buf unread events
// (at least 16). since >= 0 first replays the kept events after that
// sequence number (0: all kept; a "dropped" event says how many are no
// longer kept); since < 0 replays none.
func (b *Bus) Subscribe(buf int, since int64) *Sub {
	if buf < 16 {
		buf = 16
	}
	s := &Sub{bus: b, max: buf, wake: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	if since >= 0 && since < b.seq {
		first := b.seq - int64(len(b.recent)) + 1
		if since+1 < first {
			s.dropped = first - since - 1
		}
		for _, e := range b.recent {
			if e.Seq > since {
				s.push(e)
			}
		}
	}
	b.subs[s] = struct{}{}
	return s
}

// Sub is one subscriber's queue.
type Sub struct {
	bus  *Bus
	max  int
	wake chan struct{}
	done chan struct{}

	mu      sync.Mutex
	queue   []Event
	dropped int64
	closed  bool
}

// push queues an event, dropping the oldest when full. Caller holds
// bus.mu.
func (s *Sub) push(e Event) {
	s.mu.Lock()
	if len(s.queue) == s.max {
		s.queue = s.queue[1:]
		s.dropped++
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Ready is signalled when events may be waiting; Next takes them.
func (s *Sub) Ready() <-chan struct{} { return s.wake }

// Done is closed when the subscription is closed.
func (s *Sub) Done() <-chan struct{} { return s.done }

// Next takes the queued events, oldest first, led by a "dropped" event
// when some were lost.
func (s *Sub) Next() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.queue
	s.queue = nil
	if s.dropped > 0 {
		out = append([]Event{{Kind: Dropped, Count: s.dropped, Time: time.Now()}}, out...)
		s.dropped = 0
	}
	return out
}

// Close ends the subscription.
func (s *Sub) Close() {
	s.bus.mu.Lock()
	delete(s.bus.subs, s)
	s.bus.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
}

// cut bounds a page-controlled string, marking the cut.
func cut(s string) string {
	if len(s) <= MaxText {
		return safetext.Line(s)
	}
	i := MaxText
	for i > 0 && s[i]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		i--
	}
	return safetext.Line(s[:i]) + "…"
}
