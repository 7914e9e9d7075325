package sessions

import (
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// The daemon's bound (Config.MaxSessions, loupe daemon start
// --max-sessions N) counts the sessions that hold a browser, wherever it
// runs — launched here, attached over CDP or taken from a Grid — and
// those starting one: each is a connection the daemon serves and state
// it keeps, and a Grid browser is a slot of a shared pool besides. A
// session past the bound is refused before anything starts
// (TOO_MANY_SESSIONS, not executed); one that closes its browser makes
// room.

// reserve takes a place under the bound for s as it starts a browser;
// a session that holds one keeps it. Caller holds s.mu.
func (m *Manager) reserve(s *Session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cfg.MaxSessions <= 0 || m.held[s] {
		return nil
	}
	if len(m.held) >= m.cfg.MaxSessions {
		names := make([]string, 0, len(m.held))
		for h := range m.held {
			names = append(names, h.name)
		}
		slices.Sort(names)
		return apitype.Errorf(apitype.TooManySessions, "the daemon runs at most %d sessions with a browser (--max-sessions %d), and %d do: %s; session %q gets none",
			m.cfg.MaxSessions, m.cfg.MaxSessions, len(names), strings.Join(names, ", "), s.name)
	}
	if m.held == nil {
		m.held = map[*Session]bool{}
	}
	m.held[s] = true
	return nil
}

// unreserve gives s's place back: its browser ended, or did not start.
func (m *Manager) unreserve(s *Session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.held, s)
}
