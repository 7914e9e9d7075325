// Package sessions owns loupe's sessions: each named session's browser and
// files, the clients attached to it, and, per client, the surface it works
// in and its last snapshot of each surface. The current surface belongs to
// the client, not the browser, so one client's `tab new` or `switch` never
// retargets another client's next operation; the last snapshot is what a
// write's report diffs against.
package sessions

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/chooser"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/engine/network"
	"github.com/loupe-dev/loupe/internal/engine/person"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grid"
)

// Config says how sessions launch their browsers.
type Config struct {
	// Home is loupe's state directory (LOUPE_HOME): sessions keep their
	// profiles and files under Home/sessions/NAME.
	Home string
	// Chromium is the browser binary to launch ("" finds one).
	Chromium string
	// Headed shows browser windows.
	Headed bool
	// BrowserArgs are extra Chromium flags.
	BrowserArgs []string
	// BrowserLog, if set, receives launched browsers' stderr.
	BrowserLog io.Writer
	// Events receives the sessions' events (browsers gone); nil: none.
	Events *events.Bus
	// Downloads gives each browser its download policy (nil: every
	// download is saved); the session fills in where held ones wait.
	Downloads func(s *Session) download.Options
	// Crashed hears of a tab's renderer crash (see engine.CrashHandler);
	// nil leaves crashed tabs as they are.
	Crashed func(ctx context.Context, s *Session, t *engine.Surface)
	// Person hears of a person's own input in a tab (see
	// person.WithInput) — in headed browsers and attached ones,
	// where a person can give any; nil watches for none.
	Person func(ctx context.Context, s *Session, t *engine.Surface)
	// Grid, if set, is where every session's browser comes from instead
	// of a local launch (LOUPE_GRID; see GridSource).
	Grid *GridSource
	// MaxSessions bounds the sessions with a browser (0: no bound; see
	// reserve).
	MaxSessions int
}

// Manager holds the named sessions. It is safe for concurrent use.
type Manager struct {
	cfg Config

	mu sync.Mutex
	m  map[string]*Session
	// grids are the clients of the Grids the sessions use, by address.
	grids map[string]*grid.Client
	// held are the sessions that count against MaxSessions.
	held map[*Session]bool
}

// New returns an empty manager.
func New(cfg Config) *Manager { return &Manager{cfg: cfg, m: map[string]*Session{}} }

// Get returns the named session, making it (without a browser) if needed.
func (m *Manager) Get(name string) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.m[name]
	if s == nil {
		s = &Session{name: name, dir: filepath.Join(m.cfg.Home, "sessions", name), cfg: &m.cfg, m: m, clients: map[string]*Client{}}
		m.m[name] = s
	}
	return s
}

// All lists the sessions this manager has made.
func (m *Manager) All() []*Session { return m.all() }

func (m *Manager) all() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := make([]*Session, 0, len(m.m))
	for _, s := range m.m {
		list = append(list, s)
	}
	return list
}

// List describes the sessions with a running browser.
func (m *Manager) List() []apitype.SessionInfo {
	out := []apitype.SessionInfo{}
	for _, s := range m.all() {
		s.mu.Lock()
		b, at := s.browser, s.place()
		s.mu.Unlock()
		if b == nil {
			continue
		}
		out = append(out, apitype.SessionInfo{Name: s.name, Browser: b.Product(), PID: b.PID(), Attached: !b.Launched(), Tabs: b.TabCount(),
			Grid: at.Grid, WebDriverSession: at.Session, Node: at.Node})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Close ends every session: launched browsers exit with their process
// trees, attached ones are disconnected, Grid ones are given back to
// their Grid.
func (m *Manager) Close(ctx context.Context) error {
	list := m.all()
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, s := range list {
		wg.Go(func() { _, errs[i] = s.Close(ctx) })
	}
	wg.Wait()
	m.closeGrids()
	return errors.Join(errs...)
}

// Session is one named browser session. mu serialises its browser's start
// and stop; operations on a started browser do not hold it.
type Session struct {
	name string
	dir  string
	cfg  *Config
	m    *Manager

	mu      sync.Mutex
	browser *engine.Browser
	dl      *download.Tracker // the browser's downloads
	// lease is the browser's WebDriver session when it came from a
	// Grid; grid is the Grid the session was attached to (attach
	// --grid), whose browsers it keeps taking until it closes.
	lease   *grid.Session
	grid    *GridSource
	clients map[string]*Client
	// ids number the session's surfaces and refs across all its
	// browsers: a new browser never reissues an id or a ref.
	ids engine.IDs
	// tabs say who drives each tab, by its page's surface id.
	tabs map[string]*tabControl
	// personal: the browser is a person's own (attach --chrome), whose
	// tabs are theirs, but for the pages loupe opened in it (own).
	personal bool
	own      map[string]bool
}

// Name is the session's name.
func (s *Session) Name() string { return s.name }

// Dir is the session's state directory.
func (s *Session) Dir() string { return s.dir }

// FilesDir is the session's own files directory: uploads are named in
// it, downloads and screenshots land in it.
func (s *Session) FilesDir() string { return filepath.Join(s.dir, "files") }

func (s *Session) downloadsDir() string { return filepath.Join(s.FilesDir(), "downloads") }

// options are what every browser of the session is started with: the
// session's id spaces, its tab and crash handlers, its tabs' network
// routes and captures and, where a person may give input (watchPerson),
// the watch for it.
func (s *Session) options(watchPerson bool) []engine.Option {
	opts := []engine.Option{engine.WithIDs(&s.ids), engine.WithTabEvents(func(e engine.TabEvent) {
		kind := map[string]string{engine.TabOpened: events.TabOpened, engine.TabClosed: events.TabClosed, engine.TabChanged: events.TabChanged}[e.Kind]
		s.cfg.Events.Publish(events.Event{Kind: kind, Session: s.name, SurfaceID: e.SurfaceID, URL: e.URL, Title: e.Title})
	})}
	// Every tab can be routed and its traffic captured (package
	// engine/network); a tab with no route and no capture pays nothing.
	opts = append(opts, network.Option())
	if h := s.cfg.Crashed; h != nil {
		opts = append(opts, engine.WithCrashHandler(func(ctx context.Context, t *engine.Surface) { h(ctx, s, t) }))
	}
	if h := s.cfg.Person; h != nil && watchPerson {
		opts = append(opts, person.WithInput(func(ctx context.Context, t *engine.Surface) { h(ctx, s, t) }))
	}
	if !watchPerson {
		// Nobody watches this browser: a file chooser a page opens is
		// reported and answered by an upload, not left to nobody.
		opts = append(opts, chooser.Intercept(func(_ context.Context, _ *engine.Surface, p chooser.Pending) {
			s.cfg.Events.Publish(events.Event{Kind: events.FileChooser, Session: s.name, SurfaceID: p.Page})
		}))
	}
	return opts
}

// trackDownloads starts tracking a new browser's downloads, by the
// session's download policy; downloads in flight and those held for a
// person's answer wait in the session's directory, outside its files.
// Caller holds s.mu.
func (s *Session) trackDownloads(ctx context.Context, b *engine.Browser) error {
	var o download.Options
	if s.cfg.Downloads != nil {
		o = s.cfg.Downloads(s)
	}
	o.HoldDir = filepath.Join(s.dir, "held")
	o.StagingDir = filepath.Join(s.dir, "downloading")
	dl, err := download.Track(ctx, b, s.downloadsDir(), o)
	if err != nil {
		return err
	}
	s.dl = dl
	return nil
}

// Downloads is the download tracker of the session's browser.
func (s *Session) Downloads() (*download.Tracker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dl == nil {
		return nil, apitype.Errorf(apitype.TransportUnsupported, "the session has no browser whose downloads are tracked")
	}
	return s.dl, nil
}

// end takes the session's browser and download tracker away (caller holds
// s.mu); finish closes them, without the lock.
func (s *Session) end() (finish func(ctx context.Context) error) {
	b, dl, lease := s.browser, s.dl, s.lease
	s.browser, s.dl, s.lease = nil, nil, nil
	s.personal, s.own = false, nil
	s.forgetClients()
	if b != nil {
		s.m.unreserve(s)
	}
	return func(ctx context.Context) error {
		if b == nil {
			return nil
		}
		if dl != nil && !b.Launched() && lease == nil {
			dl.Restore(ctx) // an attached browser gets its own behaviour back
		}
		err := b.Close(ctx)
		if dl != nil {
			dl.Close()
		}
		if lease != nil {
			err = errors.Join(err, release(ctx, s.dir, lease)) // the Grid's slot is free
		}
		return err
	}
}

// Live reports whether the session has a browser now that has not gone.
// It changes nothing: a browser that died is reported (BROWSER_GONE) by
// the next call of Browser, not here.
func (s *Session) Live() bool { return s.Running() != nil }

// SetPersonal marks the session's browser as a person's own: its tabs
// are theirs, except those loupe opens from now on (MarkOwn).
func (s *Session) SetPersonal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.personal, s.own = true, map[string]bool{}
}

// Personal reports whether the session's browser is a person's own.
func (s *Session) Personal() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.personal
}

// MarkOwn records a page loupe opened (by its surface id).
func (s *Session) MarkOwn(page string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own == nil {
		s.own = map[string]bool{}
	}
	s.own[page] = true
}

// Own reports whether loupe opened a page.
func (s *Session) Own(page string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own[page]
}

// IDs are the session's id spaces (surfaces and refs), which outlive
// its browsers.
func (s *Session) IDs() *engine.IDs { return &s.ids }

// Running is the session's browser when it has one that has not gone
// (nil otherwise); unlike Browser it never starts one.
func (s *Session) Running() *engine.Browser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.browser == nil {
		return nil
	}
	select {
	case <-s.browser.Done():
		return nil
	default:
		return s.browser
	}
}

// Client returns the session's client with this id, making it if needed.
func (s *Session) Client(id string) *Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[id]
	if c == nil {
		c = &Client{id: id, last: map[string]Snapshot{}}
		s.clients[id] = c
	}
	return c
}

// forgetClients clears every client's current surface and snapshots: the
// browser they named is gone. Caller holds s.mu.
func (s *Session) forgetClients() {
	for _, c := range s.clients {
		c.reset()
	}
}

// endExited clears away a browser that has exited (its process, its
// Grid session), bounded apart from the caller's deadline. Caller holds
// s.mu.
func (s *Session) endExited(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = s.end()(cctx)
}

// Browser returns the session's live browser, launching one if needed.
func (s *Session) Browser(ctx context.Context) (*engine.Browser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.browser; b != nil {
		select {
		case <-b.Done():
			// It died since the last call. Say so once, to this caller,
			// rather than start another under it: the page it was working
			// on, and its refs, are gone. The next call starts afresh.
			s.endExited(ctx)
			return nil, apitype.Errorf(apitype.BrowserGone, "the session's browser has exited since the last call; nothing was sent to it").
				Fix("run the call again to start a new browser, then take a snapshot ({1}): the old pages and refs are gone", apitype.Step{Op: "snapshot"})
		default:
			return b, nil
		}
	}
	if err := s.m.reserve(s); err != nil {
		return nil, err
	}
	var b *engine.Browser
	var err error
	if src := s.gridSource(); src != nil {
		b, err = s.startOnGrid(ctx, src)
	} else {
		b, err = s.launch(ctx)
	}
	if err != nil {
		s.m.unreserve(s)
		return nil, err
	}
	s.browser = b
	go s.watch(b)
	return b, nil
}

// launch starts a browser here. Caller holds s.mu.
func (s *Session) launch(ctx context.Context) (*engine.Browser, error) {
	bin, err := chromium.Find(s.cfg.Chromium, !s.cfg.Headed)
	if err != nil {
		return nil, apitype.Wrap(apitype.BrowserStart, err, "%v", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	b, err := engine.Launch(ctx, engine.LaunchOptions{
		Binary: bin, ProfileDir: filepath.Join(s.dir, "profile"), Headed: s.cfg.Headed, Args: s.cfg.BrowserArgs,
		Stderr: s.cfg.BrowserLog,
	}, s.options(s.cfg.Headed)...)
	if err != nil {
		return nil, err
	}
	if err := s.trackDownloads(ctx, b); err != nil {
		_ = b.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return b, nil
}

// watch tells the events that a browser died, the moment it does (not at
// the next call). A browser the session closed or dropped is not news.
func (s *Session) watch(b *engine.Browser) {
	<-b.Done()
	s.mu.Lock()
	died := s.browser == b
	s.mu.Unlock()
	if died {
		s.cfg.Events.Publish(events.Event{Kind: events.BrowserGone, Session: s.name})
	}
}

// Attach connects the session to a running browser.
func (s *Session) Attach(ctx context.Context, endpoint string) (*engine.Browser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.browser != nil {
		return nil, apitype.Errorf(apitype.BadInput, "session %q already has a browser; close it first or pick another session", s.name)
	}
	if err := s.m.reserve(s); err != nil {
		return nil, err
	}
	b, err := engine.Attach(ctx, endpoint, s.options(true)...)
	if err != nil {
		s.m.unreserve(s)
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		_ = b.Close(ctx)
		s.m.unreserve(s)
		return nil, err
	}
	if err := s.trackDownloads(ctx, b); err != nil {
		_ = b.Close(ctx)
		s.m.unreserve(s)
		return nil, err
	}
	s.browser = b
	s.forgetClients()
	go s.watch(b)
	return b, nil
}

// Close ends the session's browser; false if there was none.
func (s *Session) Close(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grid = nil // its next browser is of the manager's kind again
	if s.browser == nil {
		return false, nil
	}
	err := s.end()(ctx)
	// The daemon lives long and is mostly idle between sessions: hand the
	// memory of the session's last snapshots back to the system now.
	debug.FreeOSMemory()
	return true, err
}

// Drop discards a browser that has gone (BROWSER_GONE).
func (s *Session) Drop() {
	s.mu.Lock()
	finish := s.end()
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = finish(ctx)
}
