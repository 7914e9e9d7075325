package sessions

// Who drives a tab: the agents of the session, or a person who took it
// over. Each change of hands bumps the tab's epoch, so that what an agent
// planned against the old epoch can be told apart.
const (
	ModeAgent = "agent"
	ModeHuman = "human"
)

// tabControl is one tab's mode and epoch; moved is closed when the epoch
// moves on (and replaced by a new one).
type tabControl struct {
	mode  string
	epoch int64
	moved chan struct{}
	// crashed: the tab was handed to a person because its renderer
	// crashed (until it is resumed).
	crashed bool
}

// bump moves the epoch on and wakes those waiting on the old one.
func (c *tabControl) bump(mode string) {
	c.mode, c.epoch, c.crashed = mode, c.epoch+1, false
	close(c.moved)
	c.moved = make(chan struct{})
}

// Moved returns a channel closed once a tab's epoch is no longer epoch
// (closed already if it is not).
func (s *Session) Moved(page string, epoch int64) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.control(page)
	if c.epoch != epoch {
		done := make(chan struct{})
		close(done)
		return done
	}
	return c.moved
}

// TakeOver hands a tab (by its page's surface id) to a person and returns
// its new epoch; a tab already taken over keeps its epoch.
func (s *Session) TakeOver(page string) int64 { return s.handOver(page, false) }

// CrashedOver hands a tab whose renderer crashed to a person, as TakeOver
// does, and remembers why; it returns the new epoch.
func (s *Session) CrashedOver(page string) int64 { return s.handOver(page, true) }

func (s *Session) handOver(page string, crashed bool) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.control(page)
	if c.mode != ModeHuman {
		c.bump(ModeHuman)
	}
	c.crashed = c.crashed || crashed
	return c.epoch
}

// Crashed reports whether a tab is a person's because its renderer
// crashed.
func (s *Session) Crashed(page string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.tabs[page]
	return c != nil && c.crashed
}

// Resume hands a tab back to the agents and returns its new epoch; a tab
// the agents have keeps its epoch. ok says whether it was taken over.
func (s *Session) Resume(page string) (epoch int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.control(page)
	if c.mode != ModeHuman {
		return c.epoch, false
	}
	c.bump(ModeAgent)
	return c.epoch, true
}

// Mode says who drives a tab and its epoch.
func (s *Session) Mode(page string) (mode string, epoch int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.tabs[page]; c != nil {
		return c.mode, c.epoch
	}
	return ModeAgent, 0
}

// AnyHuman reports whether a person has any tab of the session.
func (s *Session) AnyHuman() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.tabs {
		if c.mode == ModeHuman {
			return true
		}
	}
	return false
}

// control is a tab's state, made on first use. Caller holds s.mu.
func (s *Session) control(page string) *tabControl {
	if s.tabs == nil {
		s.tabs = map[string]*tabControl{}
	}
	c := s.tabs[page]
	if c == nil {
		c = &tabControl{mode: ModeAgent, moved: make(chan struct{})}
		s.tabs[page] = c
	}
	return c
}
