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

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{"default": true, "a.b_c-1": true, "": false, "../x": false, ".hidden": false, "a b": false} {
		if ValidName(name) != want {
			t.Errorf("ValidName(%q) = %v", name, !want)
		}
	}
}
