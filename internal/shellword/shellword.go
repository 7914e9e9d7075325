// Package shellword quotes words for a POSIX shell, so that a command line
// loupe prints (a recovery hint, an MCP client's command) can be pasted
// into one and splits into exactly the words it stands for.
package shellword

import "strings"

// Quote is v as one shell word: as it is when it holds nothing a shell
// treats specially, else single-quoted (a quote inside as '\”).
func Quote(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\n'\"`$\\*?[]#;&|<>()~{}!") {
		return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
	}
	return v
}

// Join quotes each word and joins them with spaces.
func Join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}
