// Package grants says which task may act where. Every caller works as a
// task; the first call of a task in a session mints it a grant
// {session, task, daemon generation, tabs, expiresAt}. A write needs a
// current grant, and it may act only on tabs no other live task owns: a
// task owns the tabs it opens (tab new, and the popups of its tabs); the
// tabs no task opened — the browser's first tab, a person's — are shared.
//
// A grant ends when its task ends (End), when it expires, or when the
// daemon restarts (grants live in memory: a grant id from an earlier
// daemon is not current). The first write after that is refused (NO_GRANT,
// nothing sent), and the grant is gone: the task's next call, read or
// write, mints a fresh one — except for a task that was ended, which stays
// ended (every write refused) for the life of the daemon, so an agent that
// was told to stop cannot go on by accident.
//
// Callers that keep a grant id (the MCP server does) present it with each
// call; a presented id that is not the task's current grant is refused on a
// write, and replaced (the reply names the new one) on a read, which is how
// an agent learns that its old refs and tabs are gone.
package grants

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"
)

// DefaultTTL is how long a grant lasts from its minting.
const DefaultTTL = 12 * time.Hour

// Grant is one task's permission to use a session's browser.
type Grant struct {
	ID         string    `json:"id"`
	Session    string    `json:"session"`
	Task       string    `json:"task"`
	Generation string    `json:"generation"`
	Tabs       []string  `json:"tabs"` // page surface ids the task owns
	Minted     time.Time `json:"minted"`
	Expires    time.Time `json:"expires"`
}

// Refusal says why a task may not write: its grant is not current, or the
// tab belongs to another task.
type Refusal struct {
	Task  string
	Why   string
	Owner string // the task that owns the tab, for a tab refusal
	Tab   string
	Ended bool // the task was ended
}

func (r *Refusal) Error() string { return r.Why }

// Registry holds the grants of one daemon generation. It is safe for
// concurrent use.
type Registry struct {
	gen string
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	live    map[key]*Grant
	ended   map[string]time.Time // by task
	revoked map[string]string    // grant id → why it is no longer current
	owners  map[tab]string       // tab → task
	// claims are owners restored from an earlier daemon, whose task has
	// no grant yet: until when they hold (see Claim).
	claims map[tab]time.Time
	// endedWhere are families of tasks ended by EndWhere, those not yet
	// seen included.
	endedWhere []endedFamily
}

type endedFamily struct {
	match func(task string) bool
	at    time.Time
}

type key struct{ session, task string }

type tab struct{ session, page string }

// New returns an empty registry for daemon generation gen; ttl <= 0 is
// DefaultTTL; now nil is time.Now.
func New(gen string, ttl time.Duration, now func() time.Time) *Registry {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Registry{gen: gen, ttl: ttl, now: now, live: map[key]*Grant{}, ended: map[string]time.Time{},
		revoked: map[string]string{}, owners: map[tab]string{}, claims: map[tab]time.Time{}}
}

// Use returns the task's current grant, minting one if it has none. On a
// write (strict) the grant must be current: a presented id that is not,
// an expired grant, or an ended task is refused. On a read, a stale
// presented id or an expired grant is replaced by a new grant.
func (r *Registry) Use(session, task, presented string, strict bool) (Grant, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key{session, task}
	if at, ok := r.endedLocked(task); ok {
		if !strict {
			return Grant{}, nil // an ended task may still read; it holds no grant
		}
		return Grant{}, &Refusal{Task: task, Ended: true, Why: fmt.Sprintf("task %q ended at %s; its grant is revoked", task, at.UTC().Format(time.RFC3339))}
	}
	g := r.live[k]
	if g != nil && !r.now().Before(g.Expires) {
		r.revokeLocked(k, g, fmt.Sprintf("grant %s of task %q expired at %s", g.ID, task, g.Expires.UTC().Format(time.RFC3339)))
		if strict && (presented == "" || presented == g.ID) {
			return Grant{}, &Refusal{Task: task, Why: r.revoked[g.ID]}
		}
		g = nil
	}
	if presented != "" && (g == nil || presented != g.ID) {
		if strict {
			why, ok := r.revoked[presented]
			if !ok {
				why = fmt.Sprintf("grant %s is not current: it is from an earlier daemon or another task", presented)
			}
			return Grant{}, &Refusal{Task: task, Why: why}
		}
	}
	if g == nil {
		now := r.now()
		g = &Grant{ID: newID(), Session: session, Task: task, Generation: r.gen, Minted: now, Expires: now.Add(r.ttl)}
		r.live[k] = g
	}
	return r.copyLocked(g), nil
}

// Check makes sure a task may act on a tab (by its page surface id): a
// tab another live task owns is refused. A tab nobody owns is shared — the
// session's first tab, a person's own tabs — unless the tab that opened
// it (opener) is owned: a popup belongs to its opener's task, and becomes
// that task's here.
func (r *Registry) Check(session, task, page, opener string) error {
	if page == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := tab{session, page}
	owner, ok := r.owners[t]
	if ok && !r.holdsLocked(t, owner) {
		delete(r.owners, t) // its task is gone: the tab is shared again
		delete(r.claims, t)
		ok = false
	}
	if !ok && opener != "" {
		if o, okO := r.owners[tab{session, opener}]; okO && r.holdsLocked(tab{session, opener}, o) {
			r.owners[t], owner, ok = o, o, true
		}
	}
	if ok && owner != task {
		return &Refusal{Task: task, Owner: owner, Tab: page, Why: fmt.Sprintf("tab %s belongs to task %q", page, owner)}
	}
	return nil
}

// Own makes a tab the task opened its own, unless another live task
// already owns it.
func (r *Registry) Own(session, task, page string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := tab{session, page}
	if o, ok := r.owners[t]; ok && o != task && r.holdsLocked(t, o) {
		return
	}
	r.owners[t] = task
	delete(r.claims, t)
}

// Claim gives back to a task a tab it owned before the daemon restarted
// (package restore keeps who owned what, never the grants): the tab is
// the task's — refused to other tasks — while the task is not ended and
// either has a grant again or the claim is younger than a grant's life.
func (r *Registry) Claim(session, task, page string) {
	if task == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := tab{session, page}
	if o, ok := r.owners[t]; ok && o != task && r.holdsLocked(t, o) {
		return
	}
	r.owners[t] = task
	r.claims[t] = r.now().Add(r.ttl)
}

// holdsLocked reports whether a task's ownership of a tab holds: the
// task has a live grant, or a current claim and was not ended. Caller
// holds r.mu.
func (r *Registry) holdsLocked(t tab, task string) bool {
	if r.live[key{t.session, task}] != nil {
		return true
	}
	until, ok := r.claims[t]
	_, ended := r.endedLocked(task)
	return ok && !ended && r.now().Before(until)
}

// Owner is the task that owns a tab ("" for none).
func (r *Registry) Owner(session, page string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := tab{session, page}
	o := r.owners[t]
	if o == "" || !r.holdsLocked(t, o) {
		return ""
	}
	return o
}

// End revokes the task's grants, in every session, and releases its tabs;
// the task's writes are refused from now on. It returns the grants it
// revoked.
func (r *Registry) End(task string) []Grant {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Grant
	for k, g := range r.live {
		if k.task == task {
			out = append(out, r.copyLocked(g))
			r.revokeLocked(k, g, fmt.Sprintf("task %q was ended; grant %s is revoked", task, g.ID))
		}
	}
	r.ended[task] = r.now()
	sortGrants(out)
	return out
}

// Tasks is every task that holds a live grant or a tab, that match
// accepts, sorted: the broker ends with them the tasks of a host
// connection generation it revokes.
func (r *Registry) Tasks(match func(task string) bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for k := range r.live {
		seen[k.task] = true
	}
	for _, o := range r.owners {
		seen[o] = true
	}
	var out []string
	for t := range seen {
		if match(t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// EndWhere ends every task match accepts, as End does — those that hold
// a grant now and those that would ask for one later — and returns the
// grants it revoked. The broker ends with it a host connection
// generation that a new one replaced: a call that was let in just before
// the rotation can start nothing under the old generation's tasks.
func (r *Registry) EndWhere(match func(task string) bool) []Grant {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	var out []Grant
	for k, g := range r.live {
		if match(k.task) {
			out = append(out, r.copyLocked(g))
			r.revokeLocked(k, g, fmt.Sprintf("task %q was ended; grant %s is revoked", k.task, g.ID))
			r.ended[k.task] = now
		}
	}
	r.endedWhere = append(r.endedWhere, endedFamily{match, now})
	sortGrants(out)
	return out
}

// endedLocked reports whether and when a task was ended. Caller holds
// r.mu.
func (r *Registry) endedLocked(task string) (time.Time, bool) {
	if at, ok := r.ended[task]; ok {
		return at, true
	}
	for _, f := range r.endedWhere {
		if f.match(task) {
			return f.at, true
		}
	}
	return time.Time{}, false
}

// ForgetSession drops the tabs of a session whose browser has gone: their
// ids are never reissued, so only the memory is at stake.
func (r *Registry) ForgetSession(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for t := range r.owners {
		if t.session == session {
			delete(r.owners, t)
			delete(r.claims, t)
		}
	}
}

// List is every live grant, by session and task.
func (r *Registry) List() []Grant {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Grant, 0, len(r.live))
	for _, g := range r.live {
		out = append(out, r.copyLocked(g))
	}
	sortGrants(out)
	return out
}

func sortGrants(gs []Grant) {
	sort.Slice(gs, func(i, j int) bool {
		if gs[i].Session != gs[j].Session {
			return gs[i].Session < gs[j].Session
		}
		return gs[i].Task < gs[j].Task
	})
}

// revokeLocked ends a grant and releases its tabs. Caller holds r.mu.
func (r *Registry) revokeLocked(k key, g *Grant, why string) {
	delete(r.live, k)
	r.revoked[g.ID] = why
	for t, o := range r.owners {
		if t.session == k.session && o == k.task {
			delete(r.owners, t)
			delete(r.claims, t)
		}
	}
}

// copyLocked is a grant with its tabs filled in. Caller holds r.mu.
func (r *Registry) copyLocked(g *Grant) Grant {
	c := *g
	c.Tabs = []string{}
	for t, o := range r.owners {
		if t.session == g.Session && o == g.Task {
			c.Tabs = append(c.Tabs, t.page)
		}
	}
	slices.SortFunc(c.Tabs, compareSurface)
	return c
}

// compareSurface orders surface ids by number ("s2" before "s10").
func compareSurface(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "g-" + hex.EncodeToString(b[:])
}
