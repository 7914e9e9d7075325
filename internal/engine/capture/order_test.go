package capture_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// TestInTreeOrder: refs come out as their nodes come in the tree (a ref
// met twice where it is first met), refs the tree does not show last,
// and refs of one place in the order they came: what a stable sort on
// the place gives.
func TestInTreeOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := r.IntN(40)
		// A tree of n nodes, some without a ref, some repeating one.
		var nodes []*snapshot.Node
		var parent *snapshot.Node
		for i := range n {
			nd := &snapshot.Node{Role: "generic"}
			switch r.IntN(5) {
			case 0: // no ref
			case 1:
				nd.Ref = fmt.Sprintf("e%d", r.IntN(i+1))
			default:
				nd.Ref = fmt.Sprintf("e%d", i)
			}
			if parent != nil && r.IntN(2) == 0 {
				parent.Children = append(parent.Children, nd)
			} else {
				nodes = append(nodes, nd)
			}
			parent = nd
		}
		// Refs as bound: the tree's in any order, duplicates and a few
		// the tree does not show.
		var refs []capture.RefInfo
		for i := range n + 5 {
			refs = append(refs, capture.RefInfo{Ref: fmt.Sprintf("e%d", r.IntN(n+5)), Name: fmt.Sprint(i)})
		}
		at := map[string]int{}
		snapshot.Walk(nodes, func(nd *snapshot.Node, _ int) bool {
			if _, ok := at[nd.Ref]; nd.Ref != "" && !ok {
				at[nd.Ref] = len(at)
			}
			return true
		})
		pos := func(ref string) int {
			if i, ok := at[ref]; ok {
				return i
			}
			return len(at)
		}
		want := slices.Clone(refs)
		slices.SortStableFunc(want, func(a, b capture.RefInfo) int { return pos(a.Ref) - pos(b.Ref) })
		capture.InTreeOrder(nodes, refs)
		if !slices.Equal(refs, want) {
			t.Fatalf("round %d: got %v, want %v", round, refs, want)
		}
	}
}
