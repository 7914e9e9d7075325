package executor

import (
	"context"
	"strings"
	"sync"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// Tabs across daemon restarts (package restore). The executor keeps, for
// each session with a launched browser, its persist-partition tabs — the
// task that owns each, its address, title, order, viewport preference and
// previewed file — and, for every session, the last surface and ref
// numbers it drew, in Config.TabsFile. The file is rewritten after every
// operation, before its reply (so an id the reply hands out is on file
// before the caller has it), and soon after a tab opens, changes its
// address or title, or closes. The
// next executor starts each session's numbering past the kept numbers —
// ids from before a restart are refused as gone, never reissued — and a
// margin more after a daemon that did not stop cleanly. The next executor brings a
// session's tabs back when it launches that session's browser: as
// placeholders, owned by their tasks again (grants.Claim), loaded when an
// operation first works in one or switches to it. Attached browsers are
// a person's and are never recorded; `close` forgets a session's tabs.

// restoring is what the executor keeps for restore: the sessions' tabs
// read at its start and not yet restored into a browser.
type restoring struct {
	mu      sync.Mutex
	pending map[string][]restore.Entry
	rec     *restore.Recorder
}

// uncleanSkip is how many surface numbers a session skips after a daemon
// that did not stop cleanly: a tab a page opened may have been announced
// in an event after the file's last write.
const uncleanSkip = 1000

// startRestore reads the tabs file and starts its recorder.
func (x *Executor) startRestore(path string) {
	st, err := restore.Read(path)
	if err != nil {
		x.log.Error("reading the tabs file: no tab is restored, and the file is rewritten", "file", path, "err", err)
	}
	x.restore.pending = map[string][]restore.Entry{}
	marks := x.ledgerMarks()
	for name, kept := range st.Sessions {
		if !sessions.ValidName(name) {
			continue
		}
		if len(kept.Tabs) > 0 {
			x.restore.pending[name] = kept.Tabs
		}
	}
	for _, name := range sessionNames(st.Sessions, marks) {
		kept, m := st.Sessions[name], marks[name]
		surfaces, refs := max(kept.Surfaces, m.Surfaces), max(kept.Refs, m.Refs)
		if !st.Clean || m.Surfaces > kept.Surfaces || m.Refs > kept.Refs {
			surfaces += uncleanSkip
		}
		x.sessions.Get(name).IDs().Skip(surfaces, refs)
	}
	x.restore.rec = restore.NewRecorder(path, x.keptTabs, x.log)
	sub := x.events.Subscribe(16, -1)
	x.bgWork.Go(func() {
		defer sub.Close()
		for {
			select {
			case <-x.bg.Done():
				return
			case <-sub.Done():
				return
			case <-sub.Ready():
			}
			for _, e := range sub.Next() {
				switch e.Kind {
				case events.TabOpened, events.TabChanged, events.TabClosed, events.TabCrashed, events.BrowserGone, events.Dropped:
					x.restore.rec.Touch()
				}
			}
		}
	})
}

// sessionNames is the valid session names that either source keeps.
func sessionNames(tabs map[string]restore.Session, marks map[string]ledger.IDMarks) []string {
	var names []string
	for name := range tabs {
		if sessions.ValidName(name) {
			names = append(names, name)
		}
	}
	for name := range marks {
		if _, dup := tabs[name]; !dup && sessions.ValidName(name) {
			names = append(names, name)
		}
	}
	return names
}

// keepTabs writes the tabs file and the ledger's id marks after an
// operation, if anything in them changed (the operation may have opened,
// moved or closed tabs, or drawn ids).
func (x *Executor) keepTabs() {
	if x.restore.rec != nil {
		x.restore.rec.Flush()
		x.keepMarks()
	}
}

// stopRestore writes the tabs and id marks a last time, before the
// browsers close.
func (x *Executor) stopRestore() {
	if x.restore.rec != nil {
		x.restore.rec.Stop()
		x.keepMarks()
	}
}

// restoreOnce marks a browser whose session's tabs were restored.
type restoreOnce struct {
	mu   sync.Mutex
	done bool
}

// restoreInto brings a session's kept tabs into its newly launched
// browser, once; callers that come meanwhile wait for it. A failure is
// logged and the tabs stay kept for the next launch: restoring is never
// a reason to refuse the operation that started the browser.
func (x *Executor) restoreInto(ctx context.Context, s *sessions.Session, b *engine.Browser) {
	if x.restore.rec == nil || !b.Launched() {
		return
	}
	once := b.Kept("executor.restore", func() any { return &restoreOnce{} }).(*restoreOnce)
	once.mu.Lock()
	defer once.mu.Unlock()
	if once.done {
		return
	}
	once.done = true
	x.restore.mu.Lock()
	entries := x.restore.pending[s.Name()]
	x.restore.mu.Unlock()
	if len(entries) == 0 {
		return
	}
	tabs, err := restore.Restore(ctx, b, entries)
	for i, t := range tabs {
		x.grants.Claim(s.Name(), entries[i].Task, t.PageID())
	}
	if err != nil {
		x.log.Error("restoring tabs: they stay kept for the next launch", "session", s.Name(), "err", err)
		return
	}
	x.restore.mu.Lock()
	delete(x.restore.pending, s.Name())
	x.restore.mu.Unlock()
	x.restore.rec.Touch()
}

// keeps reports whether a session has kept tabs not restored yet.
func (x *Executor) keeps(session string) bool {
	x.restore.mu.Lock()
	defer x.restore.mu.Unlock()
	return len(x.restore.pending[session]) > 0
}

// keptTabs is what the tabs file holds now: each session's id numbers,
// and its tabs not yet restored or its launched browser's.
func (x *Executor) keptTabs() map[string]restore.Session {
	out := map[string]restore.Session{}
	for _, s := range x.sessions.All() {
		var kept restore.Session
		kept.Surfaces, kept.Refs = s.IDs().Last()
		x.restore.mu.Lock()
		pending, ok := x.restore.pending[s.Name()]
		x.restore.mu.Unlock()
		if ok {
			kept.Tabs = pending
		} else if b := s.Running(); b != nil && b.Launched() {
			kept.Tabs = x.tabsOf(s.Name(), b)
		}
		out[s.Name()] = kept
	}
	return out
}

// tabsOf is a browser's persist-partition tabs as they are kept.
func (x *Executor) tabsOf(session string, b *engine.Browser) []restore.Entry {
	return restore.Kept(b, func(page string) string { return x.grants.Owner(session, page) }, x.previews.Showing)
}

// tabsfileStage writes the tabs file on the way back, before the reply,
// if anything in it changed: the call may have opened, moved or closed
// tabs, or drawn ids (an id the reply hands out is on file before the
// caller has it).
type tabsfileStage struct{ x *Executor }

func (tabsfileStage) name() string { return "tabsfile" }

func (s tabsfileStage) enter(context.Context, *call) (func(*outcome), error) {
	return func(*outcome) { s.x.keepTabs() }, nil
}

// restoreStage loads a placeholder the operation works in: the caller's
// tab, for an operation in it, or the surface it switches to. An
// operation that shows another document in the tab (open, preview) uses
// the placeholder up without loading it.
type restoreStage struct{ x *Executor }

func (restoreStage) name() string { return "restore" }

func (s restoreStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	x := s.x
	sw, switches := c.in.(ops.Switcher)
	switches = switches && c.op.Action == ops.ActTarget
	if x.restore.rec == nil || c.op.NoBrowser || (c.op.SessionWide && !switches) {
		return nil, nil
	}
	// A session's first call after a restart starts its browser here,
	// as the operation would: the tab it works in may be a placeholder.
	if !c.sess.Live() && !x.keeps(c.sess.Name()) {
		return nil, nil
	}
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	b, err := c.deps.Caller.Browser(ctx)
	if err != nil {
		return nil, nil // the operation itself will say what is wrong
	}
	var t *engine.Surface
	if switches {
		t, err = b.Surface(ctx, sw.SwitchTo())
	} else {
		t, err = c.deps.Caller.Tab(ctx)
	}
	if err != nil {
		return nil, nil
	}
	page, err := b.Surface(ctx, t.PageID())
	if err != nil {
		return nil, nil
	}
	if _, ok := restore.Pending(b, page.ID); !ok {
		return nil, nil
	}
	open := true
	if r, ok := c.in.(ops.Replacer); ok && r.Replaces() {
		open = false
	}
	err = restore.Load(ctx, b, page, open, func(file string) (string, error) {
		return x.previews.Allow(file, page.ID, x.grants.Owner(c.sess.Name(), page.ID), func(prefix string) bool {
			select {
			case <-page.Closed():
				return false
			default:
			}
			return strings.HasPrefix(page.URL(), prefix)
		})
	})
	if err == nil {
		return nil, nil
	}
	if _, ok := apitype.As(err); ok {
		return nil, err
	}
	return nil, apitype.Wrap(apitype.NavigationFailed, err, "%v", err).
		Fix("the tab shows what loaded, if anything: reload it ({1}), open another address ({2}) or close it ({3})",
			apitype.Step{Op: "reload"}, apitype.Step{Op: "open"}, apitype.Step{Op: "tab close"})
}
