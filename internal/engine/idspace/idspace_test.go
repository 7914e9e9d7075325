package idspace

import "testing"

// TestNumberingGoesOn: ids are drawn in order, never again after a skip
// past an earlier daemon's, and a skip never moves numbering back.
func TestNumberingGoesOn(t *testing.T) {
	var s Spaces
	if a, b := s.NextSurface(), s.NextSurface(); a != "s1" || b != "s2" {
		t.Fatalf("drew %s, %s", a, b)
	}
	s.Skip(40, 900)
	if id := s.NextSurface(); id != "s41" {
		t.Fatalf("after the skip: %s", id)
	}
	s.Skip(10, 5)
	if surfaces, refs := s.Last(); surfaces != 41 || refs != 900 {
		t.Fatalf("last %d, %d", surfaces, refs)
	}
	if s.Refs() == nil {
		t.Fatal("no ref numbering")
	}
}
