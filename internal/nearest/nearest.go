// Package nearest suggests the name a caller most likely meant: a
// mistyped command, MCP field, policy class or operation gets "did you
// mean …" from one rule everywhere.
package nearest

import "strings"

// Name returns the name nearest to s, if it is near enough to be a
// typing slip: at most one edit for short names, two for longer ones
// (a swap of two letters counts as one), or s is the start of exactly
// one name.
func Name(s string, names []string) string {
	best, bestD := "", len(s)
	for _, n := range names {
		if d := Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	limit := 1
	if len(s) > 5 {
		limit = 2
	}
	if bestD <= limit {
		return best
	}
	if len(s) >= 3 {
		var prefixed []string
		for _, n := range names {
			if strings.HasPrefix(n, s) {
				prefixed = append(prefixed, n)
			}
		}
		if len(prefixed) == 1 {
			return prefixed[0]
		}
	}
	return ""
}

// Distance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of adjacent bytes.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
