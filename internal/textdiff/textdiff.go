// Package textdiff computes a compact line diff between two snapshot texts,
// so a write can tell an agent what changed without a whole new snapshot.
//
// Snapshot lines are stable (a node keeps its ref across snapshots of one
// document), so a line diff is a faithful account of what changed. The
// diff is exact (a longest common subsequence) when the changed middle of
// the two texts is small; past that it falls back to a multiset difference
// in document order, which lists the same lines but may miss a line that
// only moved.
package textdiff

import (
	"fmt"
	"strings"
)

// Op marks a diff line.
type Op byte

const (
	Add    Op = '+'
	Remove Op = '-'
)

// Line is one changed line.
type Line struct {
	Op   Op
	Text string
}

// Diff is the change from one text to another.
type Diff struct {
	Lines   []Line
	Added   int // lines added in all
	Removed int // lines removed in all
}

// maxCells bounds the LCS table (rows × columns of the changed middle).
const maxCells = 4 << 20

// Lines diffs two texts line by line.
func Lines(old, new string) Diff {
	a, b := split(old), split(new)
	// Trim the common prefix and suffix: most writes change a few lines.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	a, b = a[p:len(a)-s], b[p:len(b)-s]
	var d Diff
	if len(a)*len(b) <= maxCells {
		d.Lines = lcs(a, b)
	} else {
		d.Lines = multiset(a, b)
	}
	for _, l := range d.Lines {
		if l.Op == Add {
			d.Added++
		} else {
			d.Removed++
		}
	}
	return d
}

func split(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lcs is the classic dynamic programme, walked back into removes and adds
// in document order.
func lcs(a, b []string) []Line {
	n, m := len(a), len(b)
	// t[i][j] = LCS length of a[i:] and b[j:], in one flat slice.
	t := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return t[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			v := at(i+1, j)
			if w := at(i, j+1); w > v {
				v = w
			}
			if a[i] == b[j] {
				v = at(i+1, j+1) + 1
			}
			t[i*(m+1)+j] = v
		}
	}
	var out []Line
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case at(i+1, j) >= at(i, j+1):
			out = append(out, Line{Remove, a[i]})
			i++
		default:
			out = append(out, Line{Add, b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, Line{Remove, a[i]})
	}
	for ; j < m; j++ {
		out = append(out, Line{Add, b[j]})
	}
	return out
}

// multiset lists the lines of a not matched in b (removed) and of b not
// matched in a (added), each in its own order.
func multiset(a, b []string) []Line {
	count := map[string]int{}
	for _, l := range b {
		count[l]++
	}
	var out []Line
	for _, l := range a {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, Line{Remove, l})
	}
	count = map[string]int{}
	for _, l := range a {
		count[l]++
	}
	for _, l := range b {
		if count[l] > 0 {
			count[l]--
			continue
		}
		out = append(out, Line{Add, l})
	}
	return out
}

// Format renders the diff as "+ line" / "- line", at most maxLines lines
// and about maxChars characters, then a line saying how many changes were
// left out. An empty diff is "".
func (d Diff) Format(maxLines, maxChars int) string {
	var sb strings.Builder
	shown := 0
	for _, l := range d.Lines {
		line := string(l.Op) + " " + l.Text + "\n"
		if shown >= maxLines || sb.Len()+len(line) > maxChars {
			break
		}
		sb.WriteString(line)
		shown++
	}
	if left := len(d.Lines) - shown; left > 0 {
		fmt.Fprintf(&sb, "… %d more changed lines (%d added, %d removed in all); take a snapshot to see them\n", left, d.Added, d.Removed)
	}
	return sb.String()
}
