package snapshot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGrepGolden: the lines that match, with their ancestors (once each,
// in page order), the header, and the refs as they were; a needle in no
// line says so.
func TestGrepGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "grep", "page.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, needle string
		matched      int
	}{{"save", "save", 3}, {"frame-price", "12.00", 1}, {"none", "nowhere", 0}} {
		got, n := Grep(string(in), c.needle)
		if n != c.matched {
			t.Errorf("%s: %d lines matched, want %d", c.name, n, c.matched)
		}
		golden := filepath.Join("testdata", "grep", c.name+".golden")
		if *update {
			os.WriteFile(golden, []byte(got), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, got, want)
		}
	}
}
