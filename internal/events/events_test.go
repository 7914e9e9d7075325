package events

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestFanOutInOrder(t *testing.T) {
	b := New()
	s1, s2 := b.Subscribe(0, -1), b.Subscribe(0, -1)
	defer s1.Close()
	defer s2.Close()
	b.Publish(Event{Kind: TabOpened, SurfaceID: "s1"})
	b.Publish(Event{Kind: OpSettled, OperationID: "op-1", State: "executed"})
	for _, s := range []*Sub{s1, s2} {
		<-s.Ready()
		got := s.Next()
		if len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 || got[1].OperationID != "op-1" || got[0].Time.IsZero() {
			t.Fatalf("events = %+v", got)
		}
	}
}

func TestSlowSubscriberLosesOldestAndIsTold(t *testing.T) {
	b := New()
	s := b.Subscribe(16, -1)
	defer s.Close()
	for range 20 {
		b.Publish(Event{Kind: OpSettled})
	}
	got := s.Next()
	if len(got) != 17 || got[0].Kind != Dropped || got[0].Count != 4 || got[1].Seq != 5 || got[16].Seq != 20 {
		t.Fatalf("got %d events, first %+v", len(got), got[0])
	}
	if again := s.Next(); len(again) != 0 {
		t.Fatalf("Next again = %+v", again)
	}
}

func TestSinceReplaysKeptEvents(t *testing.T) {
	b := New()
	for range ring + 10 {
		b.Publish(Event{Kind: OpSettled})
	}
	s := b.Subscribe(2*ring, ring+5)
	got := s.Next()
	if len(got) != 5 || got[0].Seq != ring+6 {
		t.Fatalf("since a kept event: %d events, first %+v", len(got), got[0])
	}
	s.Close()
	if all := b.Subscribe(4*ring, 0).Next(); all[0].Kind != Dropped || all[0].Count != 10 || len(all) != ring+1 {
		t.Fatalf("since 0: %d events, first %+v", len(all), all[0])
	}
	s = b.Subscribe(2*ring, 3)
	got = s.Next()
	if got[0].Kind != Dropped || got[0].Count != 7 || got[1].Seq != 11 || len(got) != ring+1 {
		t.Fatalf("since an event no longer kept: %d events, first %+v %+v", len(got), got[0], got[1])
	}
	s.Close()
}

func TestPageTextIsCut(t *testing.T) {
	b := New()
	s := b.Subscribe(0, -1)
	defer s.Close()
	b.Publish(Event{Kind: TabOpened, Title: strings.Repeat("é", 1000), URL: "https://x/" + strings.Repeat("a", 5000)})
	e := s.Next()[0]
	if len(e.Title) > MaxText+len("…") || !utf8.ValidString(e.Title) || !strings.HasSuffix(e.Title, "…") || len(e.URL) > MaxText+len("…") {
		t.Fatalf("title %d bytes, url %d bytes", len(e.Title), len(e.URL))
	}
}

// TestPageTextIsSafe: a title, an address or a file name from a page
// reaches subscribers on one line with its terminal controls escaped.
func TestPageTextIsSafe(t *testing.T) {
	b := New()
	sub := b.Subscribe(0, -1)
	defer sub.Close()
	b.Publish(Event{Kind: TabChanged, Title: "a\x1b]0;x\x07\nb", URL: "http://x/\u202e", File: "r\u2028.txt"})
	e := sub.Next()[0]
	if e.Title != `a\x1b]0;x\x07\nb` || e.URL != `http://x/\u202e` || e.File != `r\u2028.txt` {
		t.Fatalf("%q %q %q", e.Title, e.URL, e.File)
	}
}

func TestConcurrentPublishAndClose(t *testing.T) {
	b := New()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			s := b.Subscribe(0, -1)
			for range 100 {
				b.Publish(Event{Kind: OpSettled})
				s.Next()
			}
			s.Close()
			<-s.Done()
		})
	}
	wg.Wait()
	var nilBus *Bus
	nilBus.Publish(Event{}) // a process without a bus publishes nowhere
}
