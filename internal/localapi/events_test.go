package localapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/events"
)

// A reader that falls far behind the event stream is not cut off: it is
// told how many events it missed ("dropped") and reads on.
func TestSlowEventReaderIsToldWhatItMissed(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	bus := s.X.Events()
	var (
		first    = make(chan struct{})
		released = make(chan struct{})
		enough   = errors.New("enough")
		dropped  int64
	)
	// The reader decodes thousands of events under the race detector: on
	// a loaded 2-core machine that took longer than ctx's 10 s (seen in a
	// full run beside other test binaries), so its bound is generous.
	readCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	read := make(chan error, 1)
	go func() {
		n := 0
		read <- s.Client().Events(readCtx, "", -1, func(line []byte) error {
			var e events.Event
			if err := json.Unmarshal(line, &e); err != nil {
				return err
			}
			if n++; n == 1 {
				close(first)
				<-released // the reader stalls while the flood is published
			}
			switch {
			case e.Kind == events.Dropped:
				dropped += e.Count
			case e.Kind == events.TaskEnded && e.Task == "last":
				return enough
			}
			return nil
		})
	}()
	// The stream subscribes when its request arrives: until the reader has
	// its first event, one is published every 10 ms (bounded by ctx).
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case <-first:
			waiting = false
		case err := <-read:
			t.Fatalf("the stream ended before its first event: %v", err)
		case <-tick.C:
			bus.Publish(events.Event{Kind: events.TaskEnded, Task: "hello"})
		case <-ctx(t).Done():
			t.Fatal("no first event")
		}
	}
	// Far more than the socket, the client's buffer and the subscription
	// hold while the reader does not read.
	const flood = 10000
	for i := 0; i < flood; i++ {
		bus.Publish(events.Event{Kind: events.TaskEnded, Task: "flood-" + strings.Repeat("x", 100)})
	}
	close(released)
	bus.Publish(events.Event{Kind: events.TaskEnded, Task: "last"})
	if err := <-read; !errors.Is(err, enough) {
		t.Fatalf("the stream ended with %v before the last event", err)
	}
	if dropped == 0 || dropped >= flood {
		t.Errorf("dropped %d of %d events, want some told as dropped and the newest delivered", dropped, flood)
	}
}
