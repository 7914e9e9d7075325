package sessions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/grid"
)

// A session's browser can come from a Selenium Grid 4: a WebDriver
// session per browser, taken from the Grid when the session needs a
// browser and deleted when the browser ends (the session closes, the
// daemon stops, the browser dies), so that loupe never holds a Grid slot
// it no longer drives. loupe drives it over the Grid's CDP endpoint
// (se:cdp) as any attached browser.
//
// A process that is killed (SIGKILL, a crash, the machine's OOM killer)
// deletes nothing, and the Grid would hold its slots until its own
// --session-timeout (300 s by default). So each WebDriver session is on
// record, as the Grid gives it, in a lease file in the session's
// directory (lease.go: the Grid's address, the session's id, and the
// owner — the process, named for good by package procid), removed once
// the Grid has deleted it. The next start of the daemon or of an
// in-process MCP server of the home (system.ReapLeftovers, as it ends
// leftover browsers) deletes the sessions of owners that are gone,
// within a few seconds when a Grid does not answer, and leaves those of
// owners that still run alone. A lease whose delete failed, at close or
// at start, stays on record for the next start.

// GridSource is where a session's browsers come from instead of a local
// launch: a Selenium Grid, and the capabilities asked of it.
type GridSource struct {
	// URL is the Grid's address (http://host:4444).
	URL string
	// Capabilities are the user's, a JSON object merged over loupe's
	// (see grid.Capabilities); "" asks for loupe's Chromium.
	Capabilities string
}

// Check reports a source loupe cannot use: a bad address or
// capabilities that are not a JSON object.
func (g *GridSource) Check() error {
	if _, err := grid.ParseURL(g.URL); err != nil {
		return err
	}
	if g.Capabilities != "" {
		return grid.CheckCapabilities(g.Capabilities)
	}
	return nil
}

// Liveness of a Grid browser (see watchGrid).
const (
	pingEvery   = 2 * time.Second
	pingTimeout = 3 * time.Second
)

// gridClient is the manager's client of the Grid at url, made on first
// use; Manager.Close closes them.
func (m *Manager) gridClient(url string) (*grid.Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.grids[url]; c != nil {
		return c, nil
	}
	c, err := grid.New(url)
	if err != nil {
		return nil, err
	}
	if m.grids == nil {
		m.grids = map[string]*grid.Client{}
	}
	m.grids[url] = c
	return c, nil
}

// closeGrids stops the Grid clients' own work (requests followed
// through after their callers left).
func (m *Manager) closeGrids() {
	m.mu.Lock()
	cs := m.grids
	m.grids = nil
	m.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// gridSource is where the session's next browser comes from: the Grid it
// was attached to, else the manager's (LOUPE_GRID), else nil (a local
// launch). Caller holds s.mu.
func (s *Session) gridSource() *GridSource {
	if s.grid != nil {
		return s.grid
	}
	return s.cfg.Grid
}

// startOnGrid takes a browser from the Grid and attaches to it. The
// lease (the WebDriver session) is on record in the session's directory
// before anything else is done with it (see writeLease), so that a
// process killed from then on leaves its slot to be given back by the
// next start. On any failure after the Grid gave the browser, its
// WebDriver session is deleted: nothing is left holding the slot.
// Caller holds s.mu.
func (s *Session) startOnGrid(ctx context.Context, src *GridSource) (*engine.Browser, error) {
	c, err := s.m.gridClient(src.URL)
	if err != nil {
		return nil, apitype.Wrap(apitype.BadInput, err, "%v", err)
	}
	caps, err := grid.Capabilities(chromium.NodeFlags(), src.Capabilities)
	if err != nil {
		return nil, apitype.Wrap(apitype.BadInput, err, "%v", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, apitype.Wrap(apitype.FileError, err, "making the session's directory: %v", err)
	}
	lease, err := c.NewSession(ctx, caps)
	if err != nil {
		return nil, gridError(c.URL(), err)
	}
	fail := func(err error) (*engine.Browser, error) {
		if lease.Delete(ctx) == nil { // bounded by its own deadline
			removeLease(s.dir, lease.ID)
		}
		return nil, err
	}
	if err := writeLease(s.dir, src.URL, lease.ID); err != nil {
		// An unrecorded lease is what a killed process could not give
		// back: no browser on those terms.
		return fail(apitype.Wrap(apitype.FileError, err, "the Selenium Grid at %s gave a browser, but loupe could not record its WebDriver session in %s, so it was given back: %v", c.URL(), s.dir, err))
	}
	// Nobody watches a Grid browser's window: a file chooser is
	// answered by an upload, as in a headless browser of loupe's own.
	b, err := engine.Attach(ctx, lease.CDP, s.options(false)...)
	if err != nil {
		return fail(err)
	}
	if err := s.trackDownloads(ctx, b); err != nil {
		_ = b.Close(ctx)
		return fail(err)
	}
	s.lease = lease
	go watchGrid(b, lease)
	return b, nil
}

// AttachGrid connects the session to a browser from a Selenium Grid; the
// session's next browsers come from the same Grid until it closes. A
// browser that has died is replaced (and its Grid session deleted); a
// live one is not.
func (s *Session) AttachGrid(ctx context.Context, src GridSource) (*engine.Browser, error) {
	if err := src.Check(); err != nil {
		return nil, apitype.Wrap(apitype.BadInput, err, "%v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.browser; b != nil {
		select {
		case <-b.Done():
			s.endExited(ctx)
		default:
			return nil, apitype.Errorf(apitype.BadInput, "session %q already has a browser; close it first or pick another session", s.name)
		}
	}
	if err := s.m.reserve(s); err != nil {
		return nil, err
	}
	b, err := s.startOnGrid(ctx, &src)
	if err != nil {
		s.m.unreserve(s)
		return nil, err
	}
	s.grid = &src
	s.browser = b
	s.forgetClients()
	go s.watch(b)
	return b, nil
}

// release deletes the WebDriver session of a Grid browser that ended,
// and its lease file in dir. A lease the Grid did not delete stays on
// record: the next start of loupe asks the Grid again.
func release(ctx context.Context, dir string, lease *grid.Session) error {
	if err := lease.Delete(ctx); err != nil {
		return apitype.Wrap(apitype.GridUnavailable, err,
			"the session's browser is closed, but the Selenium Grid at %s did not end its WebDriver session %s: %v (loupe asks again when it next starts; the Grid frees the slot after its own --session-timeout)", lease.Grid(), lease.ID, err)
	}
	removeLease(dir, lease.ID)
	return nil
}

// watchGrid ends the connection to a Grid browser that has died, so that
// the session learns of it as of a launched browser that exited: calls
// in flight fail (BROWSER_GONE, writes unknown), the next call is told
// once. The Grid's CDP proxy does not close the websocket when the
// browser behind it dies (it stays open, and calls on it hang), so the
// browser is pinged over CDP every pingEvery; when a ping goes
// unanswered, the node is asked (grid.Session.Alive) and only its word
// that the WebDriver session is gone ends the connection — a busy
// browser is never taken for a dead one. A Grid that goes away closes
// the websocket itself. The goroutine ends with the connection.
func watchGrid(b *engine.Browser, lease *grid.Session) {
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-b.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
		err := b.BrowserSession().Call(ctx, "Browser.getVersion", nil, nil)
		cancel()
		if err == nil {
			continue
		}
		if alive, _ := lease.Alive(context.Background()); !alive {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = b.Close(ctx)
			cancel()
			return
		}
	}
}

// gridError gives a Grid's failure to start a browser its registry code;
// the message keeps the Grid's own words.
func gridError(url string, err error) error {
	var ge *grid.Error
	switch {
	case errors.Is(err, grid.ErrNoSlot):
		return apitype.Wrap(apitype.GridBusy, err, "no free slot on the Selenium Grid at %s: %v", url, err)
	case errors.Is(err, grid.ErrNoCDP):
		return apitype.Wrap(apitype.TransportUnsupported, err, "the Selenium Grid at %s gave a browser loupe cannot drive: %v", url, err).
			Fix("start the Grid with its CDP endpoint on (--enable-cdp true, its default); loupe drives browsers over CDP")
	case errors.As(err, &ge) && ge.Code == "invalid argument":
		return apitype.Wrap(apitype.BadInput, err, "the Selenium Grid at %s refused the capabilities: %v", url, err)
	case errors.As(err, &ge):
		return apitype.Wrap(apitype.BrowserStart, err, "the Selenium Grid at %s started no browser: %v", url, err).
			Fix("check the capabilities (browserName chrome, goog:chromeOptions.binary) against the Grid's nodes, and the node's log")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return fmt.Errorf("waiting for a browser from the Selenium Grid at %s: %w", url, err)
	}
	return apitype.Wrap(apitype.GridUnavailable, err, "the Selenium Grid at %s did not answer: %v", url, err)
}

// Place is where a session's browser runs.
type Place struct {
	// Kind is "local" (launched here), "attached" (over CDP, --cdp or
	// --chrome) or "grid".
	Kind string
	// Grid, Session and Node are the Grid's address, the WebDriver
	// session and the node that runs it (Node "" when the Grid does not
	// say).
	Grid, Session, Node string
}

// Place says where the session's browser runs ("" Kind: it has none).
func (s *Session) Place() Place {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.place()
}

// place is Place with s.mu held.
func (s *Session) place() Place {
	switch {
	case s.browser == nil:
		return Place{}
	case s.lease != nil:
		return Place{Kind: "grid", Grid: s.lease.Grid(), Session: s.lease.ID, Node: s.lease.Node}
	case s.browser.Launched():
		return Place{Kind: "local"}
	}
	return Place{Kind: "attached"}
}
