// Package partition names the partitions a tab lives in. Every tab lives
// in one: "persist", the session's profile (its cookies and storage last
// with the profile; the default), or "temp:NAME", an in-memory browser
// context of its own, made when its first tab opens and discarded with
// everything in it when its last tab closes. Cookies and storage never
// cross between partitions. A tab's partition is chosen when it opens and
// never changes (a page cannot move between browser contexts); popups
// open in their opener's.
//
// The names are part of the operation contract, checked on every front
// end; the browser contexts behind them are the engine's (package
// engine/surface).
package partition

import (
	"fmt"
	"strings"
)

// Persist is the session's profile, the partition of a tab opened without
// one.
const Persist = "persist"

// Parse checks a partition name and returns it in full ("" is Persist).
func Parse(s string) (string, error) {
	switch {
	case s == "" || s == Persist:
		return Persist, nil
	case tempName(s):
		return s, nil
	}
	return "", fmt.Errorf("partition %q: want %q or temp:NAME (letters, digits, - and _, at most 64)", bounded(s), Persist)
}

func bounded(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// tempName reports whether s is temp:NAME, NAME being 1 to 64 letters,
// digits, '-' and '_'. (By hand, not by a regular expression: a counted
// repetition costs a tenth of a millisecond to compile at every start.)
func tempName(s string) bool {
	name, ok := strings.CutPrefix(s, "temp:")
	if !ok || len(name) < 1 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
