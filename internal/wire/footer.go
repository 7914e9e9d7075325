package wire

import (
	"fmt"
	"strings"
)

// A snapshot's text (Snapshot.Text) ends with a size line, its footer:
// "[N chars, ~T tokens]". The daemon writes it; front ends drop it where
// they say the size in their own terms (a write report, an MCP result's
// _meta), so its form is part of the contract.

// Tokens estimates a text's tokens: a quarter of its characters.
func Tokens(text string) int { return (len(text) + 3) / 4 }

// Footer is the size line a snapshot's text ends with.
func Footer(text string) string {
	return fmt.Sprintf("[%d chars, ~%d tokens]\n", len(text), Tokens(text))
}

// WithoutFooter is a snapshot's text without its size line.
func WithoutFooter(t string) string {
	t = strings.TrimSuffix(t, "\n")
	if i := strings.LastIndex(t, "\n["); i >= 0 && strings.HasSuffix(t, "tokens]") {
		return t[:i+1]
	}
	return t + "\n"
}
