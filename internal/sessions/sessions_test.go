package sessions

import (
	"context"
	"testing"
)

// Each client keeps its own current surface and snapshots; losing the
// browser forgets them all (its surface ids mean nothing to the next one).
func TestClientsOwnTheirState(t *testing.T) {
	m := New(Config{Home: t.TempDir()})
	s := m.Get("work")
	if m.Get("work") != s {
		t.Fatal("Get made a second session of one name")
	}
	a, b := s.Client("a"), s.Client("b")
	if s.Client("a") != a {
		t.Fatal("Client made a second client of one id")
	}
	a.SetCurrent("s1")
	b.SetCurrent("s2")
	a.Remember("s1", Snapshot{Text: "one"})
	if a.Current() != "s1" || b.Current() != "s2" {
		t.Fatalf("current surfaces: a %q, b %q", a.Current(), b.Current())
	}
	if _, ok := b.Last("s1"); ok {
		t.Error("b sees a's snapshot")
	}
	if got, ok := a.Last("s1"); !ok || got.Text != "one" {
		t.Errorf("a's snapshot: %+v %v", got, ok)
	}
	if m.Get("other").Client("a").Current() != "" {
		t.Error("a client of another session shares state")
	}
	s.Drop()
	if a.Current() != "" || b.Current() != "" {
		t.Error("dropping the browser kept the clients' surfaces")
	}
	if _, ok := a.Last("s1"); ok {
		t.Error("dropping the browser kept a snapshot")
	}
	if had, err := s.Close(context.Background()); had || err != nil {
		t.Errorf("closing a session without a browser: %v %v", had, err)
	}
	if list := m.List(); len(list) != 0 {
		t.Errorf("sessions with a browser: %+v", list)
	}
}

// TestEpochs: a take-over and a resume each move a tab's epoch on and wake
// whoever waits on the old one; a crash hand-over is remembered until the
// tab is resumed.
func TestEpochs(t *testing.T) {
	s := New(Config{Home: t.TempDir()}).Get("default")
	moved := s.Moved("s1", 0)
	select {
	case <-moved:
		t.Fatal("moved before any hand-over")
	default:
	}
	if e := s.TakeOver("s1"); e != 1 {
		t.Fatalf("take-over epoch %d", e)
	}
	<-moved // closed by the take-over
	if e := s.TakeOver("s1"); e != 1 {
		t.Fatalf("a second take-over moved the epoch to %d", e)
	}
	select {
	case <-s.Moved("s1", 0):
	default:
		t.Fatal("Moved of an old epoch should be closed already")
	}
	if s.Crashed("s1") {
		t.Fatal("a plain take-over marked the tab crashed")
	}
	if e, ok := s.Resume("s1"); e != 2 || !ok {
		t.Fatalf("resume = %d %v", e, ok)
	}
	if e := s.CrashedOver("s1"); e != 3 || !s.Crashed("s1") {
		t.Fatalf("crash hand-over = %d crashed=%v", e, s.Crashed("s1"))
	}
	if mode, _ := s.Mode("s1"); mode != ModeHuman {
		t.Fatalf("mode after a crash = %s", mode)
	}
	s.Resume("s1")
	if s.Crashed("s1") {
		t.Error("resume should end the crash hand-over")
	}
}
