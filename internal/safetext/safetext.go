// Package safetext makes page-controlled text safe to print: what a page
// writes into a title, a console message or a link reaches an agent's
// context and a person's terminal, and must stay data there. Escape turns
// the characters that act on a terminal or reorder what is shown into
// visible escapes; Line also escapes line breaks, for outputs that promise
// one record a line.
//
// Escaped, as \xHH (up to U+00FF) or \uHHHH:
//   - C0 controls other than tab and line feed (ESC starts terminal
//     sequences: ESC]52 writes the clipboard, ESC[2J clears the screen;
//     BEL ends them; CR returns to the line start and overwrites it), and
//     DEL;
//   - C1 controls U+0080–U+009F (CSI U+009B and OSC U+009D start the same
//     sequences on terminals that read them, NEL U+0085 breaks a line);
//   - bidirectional embeddings, overrides and isolates U+202A–U+202E and
//     U+2066–U+2069 (they show text in another order than it is read);
//   - the line and paragraph separators U+2028 and U+2029.
//
// Tab and line feed are kept by Escape (page text read on purpose has
// lines); Line escapes them as \t and \n.
package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with the characters above escaped visibly; a string
// with none of them is returned as it is, without allocating.
func Escape(s string) string { return escape(s, false) }

// Line is Escape that also escapes line feeds and tabs: s stays on one
// line.
func Line(s string) string { return escape(s, true) }

// Clean reports whether Line(s) == s.
func Clean(s string) bool { return firstUnsafe(s, true) < 0 }

func escape(s string, line bool) string {
	i := firstUnsafe(s, line)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if !unsafe(r, line) {
			b.WriteRune(r)
			continue
		}
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r <= 0xff:
			b.WriteString(`\x`)
			if r < 0x10 {
				b.WriteByte('0')
			}
			b.WriteString(strconv.FormatInt(int64(r), 16))
		default:
			b.WriteString(`\u`)
			b.WriteString(strconv.FormatInt(int64(r), 16))
		}
	}
	return b.String()
}

// firstUnsafe is the byte index of the first rune to escape, or -1. It
// looks at bytes: every rune to escape is ASCII or starts with 0xC2 or
// 0xE2.
func firstUnsafe(s string, line bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			if line || (c != '\n' && c != '\t') {
				return i
			}
		case c == 0xc2 || c == 0xe2:
			r, _ := utf8.DecodeRuneInString(s[i:])
			if unsafe(r, line) {
				return i
			}
		}
	}
	return -1
}

func unsafe(r rune, line bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return line
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// NoRefs writes "[ref=" in a page's string as "[ref\=" (in any case): a
// ref is loupe's alone (a snapshot line's [ref=e12]), and text that looks
// like one must not be read as one, not even inside quotes.
func NoRefs(s string) string {
	i := indexFold(s, "[ref=")
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i+4])
		b.WriteString(`\=`)
		s = s[i+5:]
		i = indexFold(s, "[ref=")
	}
	b.WriteString(s)
	return b.String()
}

// indexFold is strings.Index for an ASCII needle, ignoring ASCII case.
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if s[i] == needle[0] && strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}
