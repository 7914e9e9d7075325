package popups

import (
	"testing"
	"time"
)

const noGesture, gesture = `{"url":"/p","userGesture":false}`, `{"url":"/p","userGesture":true}`

// decisions collects what the guard decided of each page, by its name.
type decisions chan string

func (d decisions) page(name string) func(bool) {
	return func(allow bool) {
		if allow {
			d <- name + ":allow"
		} else {
			d <- name + ":refuse"
		}
	}
}

func (d decisions) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-d:
		return s
	case <-time.After(DefaultWait + 5*time.Second):
		t.Fatal("no decision")
		return ""
	}
}

func (d decisions) none(t *testing.T) {
	t.Helper()
	select {
	case s := <-d:
		t.Fatalf("decided %s", s)
	default:
	}
}

// TestGuardPairsInEitherOrder: words and pages of one opener pair first
// with first, whichever arrives first; another opener's are its own.
func TestGuardPairsInEitherOrder(t *testing.T) {
	var g Guard
	d := make(decisions, 8)
	// Words first: a click's window, then two without a gesture.
	g.Told("A", []byte(gesture))
	g.Told("A", []byte(noGesture))
	g.Told("A", []byte(noGesture))
	g.Attached("A", d.page("a1"))
	g.Attached("A", d.page("a2"))
	if got := []string{d.next(t), d.next(t)}; got[0] != "a1:allow" || got[1] != "a2:refuse" {
		t.Errorf("words first: %v", got)
	}
	// Pages first: they wait for their words.
	g.Attached("B", d.page("b1"))
	g.Attached("B", d.page("b2"))
	d.none(t)
	g.Told("B", []byte(noGesture))
	if got := d.next(t); got != "b1:refuse" {
		t.Errorf("b1: %s", got)
	}
	g.Told("B", []byte(gesture))
	if got := d.next(t); got != "b2:allow" {
		t.Errorf("b2: %s", got)
	}
	// A's third word is still in: it is the next A page's.
	g.Attached("A", d.page("a3"))
	if got := d.next(t); got != "a3:refuse" {
		t.Errorf("a3: %s", got)
	}
	// Unreadable params are no word.
	g.Told("C", []byte(`{"userGesture":`))
	g.Attached("C", d.page("c1"))
	g.Forget("C")
	if got := d.next(t); got != "c1:allow" {
		t.Errorf("c1 after its opener closed: %s", got)
	}
	d.none(t)
}

// TestGuardLetsBeAPageWithNoWord: a page whose word never comes is let
// be after Wait, once; a word that comes later is the next page's.
func TestGuardLetsBeAPageWithNoWord(t *testing.T) {
	g := Guard{Wait: 50 * time.Millisecond}
	d := make(decisions, 4)
	start := time.Now()
	g.Attached("A", d.page("a1"))
	if got := d.next(t); got != "a1:allow" {
		t.Errorf("a1: %s", got)
	}
	if e := time.Since(start); e < g.Wait {
		t.Errorf("decided after %v, before Wait", e)
	}
	g.Told("A", []byte(noGesture))
	g.Attached("A", d.page("a2"))
	if got := d.next(t); got != "a2:refuse" {
		t.Errorf("a2: %s", got)
	}
	d.none(t)
}
