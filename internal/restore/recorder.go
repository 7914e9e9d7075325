package restore

import (
	"bytes"
	"log"
	"sync"
)

// Recorder writes the tabs file whenever it is told the tabs may have
// changed (Touch): after each operation, and when a tab opens or closes.
// Touches that come while it writes collapse into one more write, so a
// burst costs at most two; the file is written only when its bytes
// change. State is asked for on the recorder's own goroutine.
type Recorder struct {
	path  string
	state func() map[string][]Entry
	logf  func(format string, args ...any)

	touch chan struct{}
	quit  chan struct{}
	done  chan struct{}

	mu   sync.Mutex // serialises writes (the loop's and Flush's)
	last []byte

	stop sync.Once
}

// NewRecorder starts a recorder of state into the file at path. A nil
// logf logs with the standard logger.
func NewRecorder(path string, state func() map[string][]Entry, logf func(string, ...any)) *Recorder {
	if logf == nil {
		logf = log.Printf
	}
	r := &Recorder{path: path, state: state, logf: logf, touch: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	if cur, err := Read(path); err == nil {
		r.last, _ = Encode(cur) // an unchanged state is not written again
	}
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
func (r *Recorder) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := Encode(r.state())
	if err != nil {
		r.logf("restore: %v", err)
		return
	}
	if bytes.Equal(data, r.last) {
		return
	}
	if err := write(r.path, data); err != nil {
		r.logf("restore: %v", err)
		return
	}
	r.last = data
}

// Stop writes the state a last time and stops; touches after it change
// nothing. The daemon stops its recorder before it closes its browsers,
// so that their closing tabs are not recorded as closed.
func (r *Recorder) Stop() {
	r.stop.Do(func() {
		close(r.quit)
		<-r.done
		r.Flush()
	})
}
