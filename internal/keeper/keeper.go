// Package keeper keeps a daemon's tabs and id numbers across restarts
// (package restore does the file and the loading; keeper decides what is
// kept and when). For each session with a launched browser it keeps the
// persist-partition tabs — the task that owns each, its address, title,
// order, viewport preference and previewed file — and, for every session,
// the last surface and ref numbers it drew, in the tabs file and, for the
// numbers, in the ledger too. The executor calls Flush after every
// operation, before its reply (so an id the reply hands out is on file
// before the caller has it); tab events make the file be written soon
// after a tab opens, changes its address or title, or closes.
//
// The next daemon starts each session's numbering past the kept numbers —
// ids from before a restart are refused as gone, never reissued — and a
// margin more after a daemon that did not stop cleanly. It brings a
// session's tabs back when it launches that session's browser: as
// placeholders, owned by their tasks again, loaded when an operation
// first works in one or switches to it. Attached browsers are a person's
// and are never recorded; `close` forgets a session's tabs.
package keeper

import (
	"context"
	"log/slog"
	"sync"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// MarkStore keeps id marks durably: the ledger.
type MarkStore interface {
	IDs(ctx context.Context) (map[string]ledger.IDMarks, error)
	KeepIDs(ctx context.Context, session string, m ledger.IDMarks) error
}

// Config is what a Keeper works with.
type Config struct {
	Path     string // the tabs file
	Sessions *sessions.Manager
	Events   *events.Bus
	Marks    MarkStore // nil: the tabs file alone keeps the numbers
	// Owner names the task that owns a tab, Claim gives a restored tab
	// back to it (package grants).
	Owner func(session, page string) string
	Claim func(session, task, page string)
	// Showing names the file a tab previews (package preview).
	Showing func(tab, address string) (string, bool)
	Log     *slog.Logger
}

// Keeper keeps the tabs and id numbers of one daemon's sessions.
type Keeper struct {
	cfg Config
	rec *restore.Recorder

	mu      sync.Mutex
	pending map[string][]restore.Entry // kept tabs not yet restored, by session

	marks idMarks

	stop func()
	done sync.WaitGroup
}

// uncleanSkip is how many surface numbers a session skips after a daemon
// that did not stop cleanly: a tab a page opened may have been announced
// in an event after the file's last write.
const uncleanSkip = 1000

// Start reads the tabs file and the ledger's marks, moves every kept
// session's numbering past them, and starts keeping. A file that cannot be
// read is logged and rewritten: no tab is restored then.
func Start(cfg Config) *Keeper {
	k := &Keeper{cfg: cfg, pending: map[string][]restore.Entry{}}
	st, err := restore.Read(cfg.Path)
	if err != nil {
		cfg.Log.Error("reading the tabs file: no tab is restored, and the file is rewritten", "file", cfg.Path, "err", err)
	}
	for name, kept := range st.Sessions {
		if apitype.ValidSession(name) && len(kept.Tabs) > 0 {
			k.pending[name] = kept.Tabs
		}
	}
	marks := k.ledgerMarks()
	for _, name := range sessionNames(st.Sessions, marks) {
		kept, m := st.Sessions[name], marks[name]
		surfaces, refs := max(kept.Surfaces, m.Surfaces), max(kept.Refs, m.Refs)
		if !st.Clean || m.Surfaces > kept.Surfaces || m.Refs > kept.Refs {
			surfaces += uncleanSkip
		}
		cfg.Sessions.Get(name).IDs().Skip(surfaces, refs)
	}
	k.rec = restore.NewRecorder(cfg.Path, k.kept, cfg.Log)
	sub := cfg.Events.Subscribe(16, -1)
	stop := make(chan struct{})
	k.stop = sync.OnceFunc(func() { close(stop) })
	k.done.Add(1)
	go func() { // ends with Stop or the bus
		defer k.done.Done()
		defer sub.Close()
		for {
			select {
			case <-stop:
				return
			case <-sub.Done():
				return
			case <-sub.Ready():
			}
			for _, e := range sub.Next() {
				switch e.Kind {
				case events.TabOpened, events.TabChanged, events.TabClosed, events.TabCrashed, events.BrowserGone, events.Dropped:
					k.rec.Touch()
				}
			}
		}
	}()
	return k
}

// sessionNames is the valid session names that either source keeps.
func sessionNames(tabs map[string]restore.Session, marks map[string]ledger.IDMarks) []string {
	var names []string
	for name := range tabs {
		if apitype.ValidSession(name) {
			names = append(names, name)
		}
	}
	for name := range marks {
		if _, dup := tabs[name]; !dup && apitype.ValidSession(name) {
			names = append(names, name)
		}
	}
	return names
}

// Flush writes the tabs file and the ledger's id marks, if anything in
// them changed (an operation may have opened, moved or closed tabs, or
// drawn ids).
func (k *Keeper) Flush() {
	k.rec.Flush()
	k.keepMarks()
}

// Stop writes the tabs and id marks a last time (call it before the
// browsers close their tabs) and stops watching tab events.
func (k *Keeper) Stop() {
	k.stop()
	k.done.Wait()
	k.rec.Stop()
	k.keepMarks()
}

// restoreOnce marks a browser whose session's tabs were restored.
type restoreOnce struct {
	mu   sync.Mutex
	done bool
}

// RestoreInto brings a session's kept tabs into its newly launched
// browser, once; callers that come meanwhile wait for it. A failure is
// logged and the tabs stay kept for the next launch: restoring is never
// a reason to refuse the operation that started the browser.
func (k *Keeper) RestoreInto(ctx context.Context, s *sessions.Session, b *engine.Browser) {
	if !b.Launched() {
		return
	}
	once := b.Kept("executor.restore", func() any { return &restoreOnce{} }).(*restoreOnce)
	once.mu.Lock()
	defer once.mu.Unlock()
	if once.done {
		return
	}
	once.done = true
	k.mu.Lock()
	entries := k.pending[s.Name()]
	k.mu.Unlock()
	if len(entries) == 0 {
		return
	}
	tabs, err := restore.Restore(ctx, b, entries)
	for i, t := range tabs {
		k.cfg.Claim(s.Name(), entries[i].Task, t.PageID())
	}
	if err != nil {
		k.cfg.Log.Error("restoring tabs: they stay kept for the next launch", "session", s.Name(), "err", err)
		return
	}
	k.mu.Lock()
	delete(k.pending, s.Name())
	k.mu.Unlock()
	k.rec.Touch()
}

// Keeps reports whether a session has kept tabs not restored yet.
func (k *Keeper) Keeps(session string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.pending[session]) > 0
}

// kept is what the tabs file holds now: each session's id numbers, and
// its tabs not yet restored or its launched browser's.
func (k *Keeper) kept() map[string]restore.Session {
	out := map[string]restore.Session{}
	for _, s := range k.cfg.Sessions.All() {
		var kept restore.Session
		kept.Surfaces, kept.Refs = s.IDs().Last()
		k.mu.Lock()
		pending, ok := k.pending[s.Name()]
		k.mu.Unlock()
		if ok {
			kept.Tabs = pending
		} else if b := s.Running(); b != nil && b.Launched() {
			name := s.Name()
			kept.Tabs = restore.Kept(b, func(page string) string { return k.cfg.Owner(name, page) }, k.cfg.Showing)
		}
		out[s.Name()] = kept
	}
	return out
}
