package snapshot

import (
	"fmt"
	"sync"
	"testing"
)

func TestCounter(t *testing.T) {
	var c Counter
	if c.Issued(0) || c.Issued(1) {
		t.Fatal("a fresh counter has issued numbers")
	}
	for want := int64(1); want <= 3; want++ {
		if got := c.Next(); got != want {
			t.Fatalf("Next = %d, want %d", got, want)
		}
	}
	for n, want := range map[int64]bool{-1: false, 0: false, 1: true, 3: true, 4: false} {
		if got := c.Issued(n); got != want {
			t.Errorf("Issued(%d) = %v, want %v", n, got, want)
		}
	}
}

// One counter serves every surface of a session, concurrently.
func TestCounterConcurrent(t *testing.T) {
	var c Counter
	const workers, each = 8, 100
	seen := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				seen <- c.Next()
			}
		})
	}
	wg.Wait()
	close(seen)
	got := map[int64]bool{}
	for n := range seen {
		if got[n] {
			t.Fatalf("number %d handed out twice", n)
		}
		got[n] = true
	}
	if len(got) != workers*each || !c.Issued(workers*each) || c.Issued(workers*each+1) {
		t.Errorf("%d distinct numbers", len(got))
	}
}

func TestTableBind(t *testing.T) {
	tab := NewTable(new(Counter), "")
	doc := Doc{Frame: "F", World: 1}

	r1 := tab.Bind(doc, 10, "button", "Go").Ref
	r2 := tab.Bind(doc, 11, "link", "Home").Ref
	if r1 != "e1" || r2 != "e2" {
		t.Fatalf("first refs = %s, %s; want e1, e2", r1, r2)
	}
	// The same element of the same document keeps its ref; role and name
	// are refreshed.
	if again := tab.Bind(doc, 10, "button", "Stop").Ref; again != r1 {
		t.Errorf("rebinding gave %s, want %s", again, r1)
	}
	b, ok := tab.Lookup(r1)
	if !ok || b.Doc != doc || b.Elem != 10 || b.Role != "button" || b.Name != "Stop" || b.Ref != r1 {
		t.Errorf("Lookup(%s) = %+v, %v", r1, b, ok)
	}
	if tab.Len() != 2 {
		t.Errorf("Len = %d, want 2", tab.Len())
	}

	// A new document of the same frame (new world) is new elements, even
	// with the same agent ids.
	doc2 := Doc{Frame: "F", World: 2}
	if r := tab.Bind(doc2, 10, "button", "Go").Ref; r != "e3" {
		t.Errorf("same elem in a new document got %s, want e3", r)
	}
	// So is the same id in another frame.
	if r := tab.Bind(Doc{Frame: "G", World: 1}, 10, "button", "Go").Ref; r != "e4" {
		t.Errorf("same elem in another frame got %s, want e4", r)
	}
	if tab.Len() != 4 {
		t.Errorf("Len = %d, want 4", tab.Len())
	}
}

func TestTableDropFrame(t *testing.T) {
	tab := NewTable(new(Counter), "")
	old := Doc{Frame: "F", World: 1}
	cur := Doc{Frame: "F", World: 2}
	other := Doc{Frame: "G", World: 3}
	rOld1 := tab.Bind(old, 1, "button", "a").Ref
	rOld2 := tab.Bind(old, 2, "button", "b").Ref
	rCur := tab.Bind(cur, 1, "button", "a").Ref
	rOther := tab.Bind(other, 1, "button", "a").Ref

	if n := tab.DropFrame("F", cur); n != 2 {
		t.Errorf("DropFrame(F, keep current) dropped %d, want 2", n)
	}
	for _, r := range []string{rOld1, rOld2} {
		if _, ok := tab.Lookup(r); ok {
			t.Errorf("%s of the old document still resolves", r)
		}
		// A dropped ref is stale, not unknown.
		if !tab.Issued(r) {
			t.Errorf("Issued(%s) = false after drop", r)
		}
	}
	for _, r := range []string{rCur, rOther} {
		if _, ok := tab.Lookup(r); !ok {
			t.Errorf("%s was dropped", r)
		}
	}
	// Rebinding an element of the dropped document issues a new ref.
	if r := tab.Bind(old, 1, "button", "a").Ref; r == rOld1 {
		t.Errorf("a dropped binding came back as %s", r)
	}
	tab.DropFrame("F", cur) // and forget it again

	if n := tab.DropFrame("F", Doc{}); n != 1 {
		t.Errorf("DropFrame(F, Doc{}) dropped %d, want 1", n)
	}
	if _, ok := tab.Lookup(rCur); ok {
		t.Errorf("%s survived dropping all of F", rCur)
	}
	if _, ok := tab.Lookup(rOther); !ok {
		t.Errorf("dropping F took %s of G with it", rOther)
	}
	if n := tab.DropFrame("nope", Doc{}); n != 0 {
		t.Errorf("dropping an unknown frame dropped %d", n)
	}
	if tab.Len() != 1 {
		t.Errorf("Len = %d, want 1", tab.Len())
	}
}

func TestTableIssued(t *testing.T) {
	c := new(Counter)
	a, b := NewTable(c, "s1"), NewTable(c, "s2")
	ra := a.Bind(Doc{Frame: "F", World: 1}, 1, "button", "x").Ref
	rb := b.Bind(Doc{Frame: "F", World: 1}, 1, "button", "x").Ref
	if ra == rb {
		t.Fatalf("two tables on one counter issued the same ref %s", ra)
	}
	// Each ref knows its surface; the other table sees it as elsewhere.
	if o, elsewhere := a.OwnerOf(rb); o != "s2" || !elsewhere {
		t.Errorf("a.OwnerOf(%s) = %q, %v", rb, o, elsewhere)
	}
	if o, elsewhere := a.OwnerOf(ra); o != "s1" || elsewhere {
		t.Errorf("a.OwnerOf(%s) = %q, %v", ra, o, elsewhere)
	}
	for i := 0; i < 50; i++ { // runs of numbers per surface
		a.Bind(Doc{Frame: "F", World: 2}, int64(i), "button", "x")
	}
	rc := b.Bind(Doc{Frame: "F", World: 2}, 1, "button", "y").Ref
	if o, _ := a.OwnerOf(rc); o != "s2" {
		t.Errorf("owner of %s after a run of s1 refs: %q", rc, o)
	}
	if len(c.ranges) != 4 {
		t.Errorf("owner runs: %+v", c.ranges)
	}
	// A ref of another surface is issued but not in this table.
	if _, ok := a.Lookup(rb); ok {
		t.Errorf("table a resolves b's %s", rb)
	}
	if !a.Issued(rb) || !a.Issued("@"+rb) {
		t.Errorf("table a does not know %s was issued", rb)
	}
	for _, r := range []string{"e999", "e9999", "e0", "x1", "", "@"} {
		if a.Issued(r) {
			t.Errorf("Issued(%q) = true", r)
		}
	}
}

// Refs are issued in the order nodes are bound, whatever the element ids.
func TestTableRefOrder(t *testing.T) {
	tab := NewTable(new(Counter), "")
	doc := Doc{Frame: "F", World: 1}
	for i, elem := range []int64{50, 7, 1000, 3} {
		want := fmt.Sprintf("e%d", i+1)
		if got := tab.Bind(doc, elem, "button", "").Ref; got != want {
			t.Errorf("bind %d: got %s, want %s", elem, got, want)
		}
	}
}

// A dropped binding with a locator is remembered, boundedly, so a stale ref
// can still name its likely successor; one without a locator is not.
func TestTableDroppedBindings(t *testing.T) {
	tab := NewTable(new(Counter), "")
	old := Doc{Frame: "F", World: 1}
	a := tab.Bind(old, 1, "button", "Save")
	a.Locator = `role=button[name="Save"]`
	b := tab.Bind(old, 2, "button", "x")
	tab.Retain(func(d Doc) bool { return d != old })
	if _, ok := tab.Lookup(a.Ref); ok {
		t.Fatal("dropped binding still live")
	}
	if d, ok := tab.Dropped(a.Ref); !ok || d.Locator != a.Locator {
		t.Fatalf("Dropped(%s) = %v, %v", a.Ref, d, ok)
	}
	if _, ok := tab.Dropped(b.Ref); ok {
		t.Fatal("a binding without a locator is remembered")
	}
	for i := 0; i < maxDropped+10; i++ {
		d := Doc{Frame: "G", World: int64(i)}
		x := tab.Bind(d, 1, "button", "y")
		x.Locator = "#y"
		tab.DropFrame("G", Doc{})
	}
	if len(tab.dropped) > maxDropped || len(tab.droppedOrder) > maxDropped {
		t.Fatalf("dropped record grew to %d", len(tab.dropped))
	}
	if _, ok := tab.Dropped(a.Ref); ok {
		t.Fatal("the oldest dropped binding was not evicted")
	}
}

// TestForgetDropsGoneElements: the refs of elements that left their
// document go (and are stale, never reissued); other documents' and other
// elements' stay.
func TestForgetDropsGoneElements(t *testing.T) {
	var c Counter
	tab := NewTable(&c, "s1")
	d1, d2 := Doc{Frame: "f", World: 1}, Doc{Frame: "g", World: 2}
	a, b := tab.Bind(d1, 1, "button", "A"), tab.Bind(d1, 2, "button", "B")
	other := tab.Bind(d2, 1, "button", "C")
	if n := tab.Forget(d1, []int64{1, 99}); n != 1 {
		t.Fatalf("Forget = %d, want 1", n)
	}
	if _, ok := tab.Lookup(a.Ref); ok {
		t.Error("the gone element's ref still resolves")
	}
	for _, r := range []*Binding{b, other} {
		if _, ok := tab.Lookup(r.Ref); !ok {
			t.Errorf("%s was dropped", r.Ref)
		}
	}
	if !tab.Issued(a.Ref) {
		t.Error("the dropped ref should still count as issued (stale)")
	}
	if again := tab.Bind(d1, 1, "button", "A"); again.Ref == a.Ref {
		t.Error("a ref was reissued")
	}
}
