package restore

import (
	"bytes"
	"log/slog"
	"sync"
)

// Recorder writes the tabs file: at once (Flush) after each operation —
// before its reply, so an id the reply hands out is on file before the
// caller has it — and soon (Touch) when a tab opens or closes. Touches
// that come while it writes collapse into one more write; the file is
// written only when its bytes change.
type Recorder struct {
	path  string
	state func() map[string]Session
	log   *slog.Logger

	touch chan struct{}
	quit  chan struct{}
	done  chan struct{}

	mu   sync.Mutex // serialises writes (the loop's and Flush's)
	last []byte

	stop    sync.Once
	stopped bool // guarded by mu
}

// NewRecorder starts a recorder of state into the file at path; it logs
// a file it cannot write to log.
func NewRecorder(path string, state func() map[string]Session, log *slog.Logger) *Recorder {
	r := &Recorder{path: path, state: state, log: log, touch: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	go r.loop()
	return r
}

// Touch says the tabs may have changed. It never blocks.
func (r *Recorder) Touch() {
	select {
	case r.touch <- struct{}{}:
	default: // a write is already due
	}
}

func (r *Recorder) loop() {
	defer close(r.done)
	for {
		select {
		case <-r.quit:
			return
		case <-r.touch:
			r.Flush()
		}
	}
}

// Flush writes the state now, if it changed since the last write.
func (r *Recorder) Flush() { r.flush(false) }

func (r *Recorder) flush(clean bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	r.stopped = clean
	data, err := Encode(State{Clean: clean, Sessions: r.state()})
	if err != nil {
		r.log.Error("encoding the tabs file", "file", r.path, "err", err)
		return
	}
	if bytes.Equal(data, r.last) {
		return
	}
	if err := write(r.path, data); err != nil {
		r.log.Error("writing the tabs file", "file", r.path, "err", err)
		return
	}
	r.last = data
}

// Stop writes the state a last time, marked clean, and stops; touches
// and flushes after it change nothing. The daemon stops its recorder before it closes its browsers,
// so that their closing tabs are not recorded as closed.
func (r *Recorder) Stop() {
	r.stop.Do(func() {
		close(r.quit)
		<-r.done
		r.flush(true)
	})
}
