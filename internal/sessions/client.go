package sessions

import "sync"

// Client is one caller of a session: the CLI (all its invocations are one
// person at one shell), an MCP server, later a broker connection or a
// dashboard page. Each keeps its own current surface and its own last
// snapshot of each surface.
type Client struct {
	id string

	mu      sync.Mutex
	current string
	// before are the surfaces the client worked in before its current
	// one, most recent last (bounded by maxBefore), for Back.
	before []string
	last   map[string]Snapshot // by surface id
}

// maxBefore bounds a client's list of earlier surfaces.
const maxBefore = 32

// Snapshot is a client's last snapshot of a surface: its text (without the
// size footer) and the options it was taken with, to take the next one
// alike and diff against it.
type Snapshot struct {
	Options any
	Text    string
}

// ID is the client's id.
func (c *Client) ID() string { return c.id }

// Current is the surface the client works in ("" before its first).
func (c *Client) Current() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current
}

// SetCurrent makes a surface the client's current one; the one it was on
// is remembered for Back.
func (c *Client) SetCurrent(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != "" && c.current != id {
		c.before = append(c.before, c.current)
		if len(c.before) > maxBefore {
			c.before = c.before[len(c.before)-maxBefore:]
		}
	}
	c.current = id
}

// Back makes the most recent surface the client was on before, of those
// open says are still open, its current one, and returns it ("" when none
// is: the client has no current surface then).
func (c *Client) Back(open func(id string) bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.current = ""
	for len(c.before) > 0 {
		id := c.before[len(c.before)-1]
		c.before = c.before[:len(c.before)-1]
		if open(id) {
			c.current = id
			break
		}
	}
	return c.current
}

// Remember keeps a snapshot as the client's last of its surface.
func (c *Client) Remember(surface string, s Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last[surface] = s
}

// Last is the client's last snapshot of a surface.
func (c *Client) Last(surface string) (Snapshot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.last[surface]
	return s, ok
}

func (c *Client) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.current, c.before = "", nil
	c.last = map[string]Snapshot{}
}
