package sessions

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// The bound counts sessions, not starts: a session that holds a place
// keeps it; one past the bound is refused, naming who holds the places;
// a place given back is taken by the next.
func TestMaxSessions(t *testing.T) {
	m := New(Config{Home: t.TempDir(), MaxSessions: 2})
	a, b, c := m.Get("a"), m.Get("b"), m.Get("c")
	for _, s := range []*Session{a, b, a} {
		if err := m.reserve(s); err != nil {
			t.Fatalf("reserve %s: %v", s.name, err)
		}
	}
	err := m.reserve(c)
	if e, ok := apitype.As(err); !ok || e.Code != apitype.TooManySessions || !e.NotExecuted ||
		!strings.Contains(e.Message, "(--max-sessions 2), and 2 do: a, b; session \"c\" gets none") {
		t.Fatalf("a third session: %v", err)
	}
	m.unreserve(a)
	if err := m.reserve(c); err != nil {
		t.Fatalf("after a gave its place back: %v", err)
	}
	if unbound := New(Config{Home: t.TempDir()}); unbound.reserve(unbound.Get("x")) != nil || len(unbound.held) != 0 {
		t.Error("a manager without a bound counts")
	}
}

// A Grid source is checked before anything is asked of the Grid.
func TestGridSourceCheck(t *testing.T) {
	for _, g := range []GridSource{{URL: "localhost:4444"}, {URL: "http://h:1", Capabilities: "[]"}, {URL: "http://h:1", Capabilities: "{"}} {
		if g.Check() == nil {
			t.Errorf("%+v accepted", g)
		}
	}
	if err := (&GridSource{URL: "http://127.0.0.1:4444", Capabilities: `{"browserVersion":"156"}`}).Check(); err != nil {
		t.Error(err)
	}
}
