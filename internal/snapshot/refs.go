package snapshot

import (
	"sort"
	"strconv"
	"sync"

	"github.com/loupe-dev/loupe/internal/locator"
)

// Counter hands out ref numbers. One counter serves a whole browser
// session, so a ref names one node across every surface and is never
// reused, and a ref seen on the wrong surface can be told apart from one
// never issued: the counter remembers which surface each number went to,
// as runs of consecutive numbers (a snapshot issues its refs together), so
// the record stays small however many refs a long session issues.
type Counter struct {
	mu     sync.Mutex // guards the fields below
	n      int64
	ranges []ownerRange
}

type ownerRange struct {
	first, last int64
	owner       string
}

// Next returns the next ref number, starting at 1, for no surface in
// particular.
func (c *Counter) Next() int64 { return c.next("") }

func (c *Counter) next(owner string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if k := len(c.ranges); k > 0 && c.ranges[k-1].owner == owner && c.ranges[k-1].last == c.n-1 {
		c.ranges[k-1].last = c.n
	} else {
		c.ranges = append(c.ranges, ownerRange{first: c.n, last: c.n, owner: owner})
	}
	return c.n
}

// Last is the latest number handed out (0 before the first).
func (c *Counter) Last() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Skip moves the counter past n: numbers up to n were handed out
// elsewhere (by an earlier daemon) and are never handed out again.
func (c *Counter) Skip(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.n {
		c.n = n
	}
}

// Issued reports whether the number was handed out.
func (c *Counter) Issued(n int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return n >= 1 && n <= c.n
}

// Owner returns the surface the number was issued for.
func (c *Counter) Owner(n int64) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := sort.Search(len(c.ranges), func(i int) bool { return c.ranges[i].last >= n })
	if i == len(c.ranges) || c.ranges[i].first > n {
		return "", false
	}
	return c.ranges[i].owner, true
}

// Doc identifies one document: the frame that holds it and the execution
// context of the agent's world in it, which lives exactly as long as the
// document. A navigation gives the frame a new Doc.
type Doc struct {
	Frame string // frame id
	World int64  // execution context id of the agent's world
}

// Binding is what a ref stands for: an element of one document. Role and
// name are as of the latest snapshot; BackendNodeID is the element's
// renderer-local DOM id once someone asked for it (0 before).
type Binding struct {
	Ref           string
	Doc           Doc
	Elem          int64 // the agent's element id in that document
	Role          string
	Name          string
	BackendNodeID int64
	// Locator is a stable way to find the element again, valid when it
	// was computed: it matched exactly this element on the whole surface.
	// Empty when no such locator was found.
	Locator string
}

type bindKey struct {
	doc  Doc
	elem int64
}

// Table binds refs to elements for one surface. A node keeps its ref for as
// long as its document lives; when a document goes away its refs are
// dropped, and looking one up reports it as stale. Table is not safe for
// concurrent use; its owner serialises access.
type Table struct {
	counter *Counter
	owner   string // the surface the table's refs belong to
	byKey   map[bindKey]*Binding
	byRef   map[string]*Binding
	// dropped remembers recently dropped bindings that had a locator, so
	// a stale ref can still name its likely successor; oldest first,
	// bounded by maxDropped.
	dropped      map[string]*Binding
	droppedOrder []string
}

// maxDropped bounds how many dropped bindings a table remembers.
const maxDropped = 4096

// NewTable returns an empty table for a surface, drawing numbers from c.
func NewTable(c *Counter, owner string) *Table {
	return &Table{counter: c, owner: owner, byKey: map[bindKey]*Binding{}, byRef: map[string]*Binding{}, dropped: map[string]*Binding{}}
}

// Bind returns the element's binding, issuing a ref on first sight. Role
// and name are refreshed on every call.
func (t *Table) Bind(d Doc, elem int64, role, name string) *Binding {
	k := bindKey{d, elem}
	if b, ok := t.byKey[k]; ok {
		b.Role, b.Name = role, name
		return b
	}
	b := &Binding{Ref: "e" + strconv.FormatInt(t.counter.next(t.owner), 10), Doc: d, Elem: elem, Role: role, Name: name}
	t.byKey[k] = b
	t.byRef[b.Ref] = b
	return b
}

// Find returns the binding of an element of a document, if a snapshot
// has issued it a ref; it never issues one.
func (t *Table) Find(d Doc, elem int64) (*Binding, bool) {
	b, ok := t.byKey[bindKey{d, elem}]
	return b, ok
}

// Lookup resolves a ref. ok is false when the table holds no such ref;
// Issued then tells a stale ref (issued, since dropped or issued elsewhere)
// from one never handed out.
func (t *Table) Lookup(ref string) (*Binding, bool) {
	b, ok := t.byRef[ref]
	return b, ok
}

// Issued reports whether the ref number was ever handed out by the counter.
func (t *Table) Issued(ref string) bool {
	n, err := locator.ParseRef(ref)
	return err == nil && t.counter.Issued(n)
}

// OwnerOf returns the surface a ref was issued for, if it was issued, and
// whether that is another surface than this table's.
func (t *Table) OwnerOf(ref string) (owner string, elsewhere bool) {
	n, err := locator.ParseRef(ref)
	if err != nil {
		return "", false
	}
	o, ok := t.counter.Owner(n)
	return o, ok && o != t.owner
}

// DropFrame forgets every ref in the frame's documents other than keep
// (pass Doc{} to drop them all); called when the frame navigates or goes.
func (t *Table) DropFrame(frame string, keep Doc) int {
	return t.Retain(func(d Doc) bool { return d.Frame != frame || d == keep })
}

func (t *Table) drop(k bindKey, b *Binding) {
	delete(t.byKey, k)
	delete(t.byRef, b.Ref)
	if b.Locator == "" {
		return
	}
	t.dropped[b.Ref] = b
	t.droppedOrder = append(t.droppedOrder, b.Ref)
	if len(t.droppedOrder) > maxDropped {
		delete(t.dropped, t.droppedOrder[0])
		t.droppedOrder = t.droppedOrder[1:]
	}
}

// Dropped returns the binding a ref had before its document went away, if
// it had a locator and is still remembered.
func (t *Table) Dropped(ref string) (*Binding, bool) {
	b, ok := t.dropped[ref]
	return b, ok
}

// Forget drops the refs of elements of a document that have left it.
func (t *Table) Forget(d Doc, elems []int64) int {
	n := 0
	for _, e := range elems {
		k := bindKey{d, e}
		if b, ok := t.byKey[k]; ok {
			t.drop(k, b)
			n++
		}
	}
	return n
}

// Retain keeps the refs whose document passes keep and forgets the rest.
func (t *Table) Retain(keep func(Doc) bool) int {
	n := 0
	for k, b := range t.byKey {
		if !keep(k.doc) {
			t.drop(k, b)
			n++
		}
	}
	return n
}

// Len is the number of live refs.
func (t *Table) Len() int { return len(t.byRef) }
