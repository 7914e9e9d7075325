package snapshot

import (
	"fmt"
	"strings"
)

// Grep keeps the lines of a rendered snapshot (its header line, then one
// node a line, two spaces of indent a level) that contain needle, in any
// case, and each one's ancestors, so that every kept line still says
// where it is; refs and the rest of each line stay as they were. matched
// counts the lines that contain it.
func Grep(text, needle string) (kept string, matched int) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) == 0 || needle == "" {
		return text, 0
	}
	want := strings.ToLower(needle)
	keep := make([]bool, len(lines))
	keep[0] = true // the header: which surface, which page
	depth := func(l string) int { return (len(l) - len(strings.TrimLeft(l, " "))) / 2 }
	for i := 1; i < len(lines); i++ {
		if !strings.Contains(strings.ToLower(lines[i]), want) {
			continue
		}
		matched++
		keep[i] = true
		// Up the tree: each nearest line above with less indent.
		d := depth(lines[i])
		for j := i - 1; j > 0 && d > 0; j-- {
			if dj := depth(lines[j]); dj < d {
				if keep[j] {
					break // its ancestors are kept already
				}
				keep[j], d = true, dj
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if keep[i] {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	if matched == 0 {
		fmt.Fprintf(&b, "(no line has %q)\n", needle)
	}
	return b.String(), matched
}
