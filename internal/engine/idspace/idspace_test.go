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

// TestStart: the ids and refs drawn before a browser's start are told
// apart from its own; what is no id is no earlier one.
func TestStart(t *testing.T) {
	var s Spaces
	s.NextSurface()
	s.NextSurface()
	s.Refs().Next()
	st := s.Start()
	for id, want := range map[string]bool{"s1": true, "s2": true, "s3": false, "s0": false, "x1": false, "s": false, "sx": false} {
		if got := st.SurfaceBefore(id); got != want {
			t.Errorf("SurfaceBefore(%q) = %v, want %v", id, got, want)
		}
	}
	for ref, want := range map[string]bool{"e1": true, "e2": false, "e0": false, "1": false, "": false} {
		if got := st.RefBefore(ref); got != want {
			t.Errorf("RefBefore(%q) = %v, want %v", ref, got, want)
		}
	}
}
