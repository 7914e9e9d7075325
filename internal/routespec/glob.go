// Package routespec reads what a person or an agent writes to route a
// tab's requests: URL patterns (Glob) and headers (Header). It parses
// outside text and stands alone, so that the operation contract (package
// ops) refuses a bad route before anything runs, with the same rules the
// engine (package engine/network) routes by.
package routespec

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// MaxPattern bounds a route's URL pattern.
const MaxPattern = 2048

// maxAlternatives bounds the alternatives of one {a,b,…} group and of a
// whole pattern, so a pattern compiles to a small expression.
const maxAlternatives = 64

// Glob is a compiled URL pattern, in the spelling Playwright's routes use,
// matched against a request's whole URL without its fragment:
//
//	**      any characters, "/" included
//	*       any characters but "/"
//	{a,b}   one of the comma-separated alternatives (not nested)
//	\c      the character c itself
//
// Every other character, "?" included, stands for itself ("?" starts a
// URL's query far more often than anyone means "any one character"). So
// "**/api/*" matches "http://127.0.0.1:8080/api/users" but not
// ".../api/users/7", and "**/*.{png,jpg}" matches images anywhere.
//
// It compiles to a regular expression (RE2: matching takes time linear in
// the URL whatever the pattern), because patterns come from outside.
type Glob struct {
	src string
	re  *regexp.Regexp
}

// errPattern is the cause of every pattern error.
var errPattern = errors.New("bad URL pattern")

// Compile parses a URL pattern (see Glob).
func Compile(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, fmt.Errorf("%w: empty", errPattern)
	}
	if len(pattern) > MaxPattern {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", errPattern, len(pattern), MaxPattern)
	}
	var b strings.Builder
	b.WriteString(`\A(?s:`)
	inGroup, alts := false, 0
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '\\':
			if i+1 == len(pattern) {
				return nil, fmt.Errorf("%w: %q ends in a lone \\", errPattern, pattern)
			}
			i++
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				for i+1 < len(pattern) && pattern[i+1] == '*' {
					i++
				}
				b.WriteString(`.*`)
			} else {
				b.WriteString(`[^/]*`)
			}
		case '{':
			if inGroup {
				return nil, fmt.Errorf("%w: %q nests {…} groups", errPattern, pattern)
			}
			inGroup = true
			alts++
			b.WriteString(`(?:`)
		case ',':
			if !inGroup {
				b.WriteByte(',')
				continue
			}
			if alts++; alts > maxAlternatives {
				return nil, fmt.Errorf("%w: %q has more than %d alternatives", errPattern, pattern, maxAlternatives)
			}
			b.WriteByte('|')
		case '}':
			if !inGroup {
				b.WriteByte('}')
				continue
			}
			inGroup = false
			b.WriteByte(')')
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	if inGroup {
		return nil, fmt.Errorf("%w: %q leaves a { open", errPattern, pattern)
	}
	b.WriteString(`)\z`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", errPattern, pattern, err)
	}
	return &Glob{src: pattern, re: re}, nil
}

// Match reports whether the URL (its fragment dropped) matches.
func (g *Glob) Match(url string) bool {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		url = url[:i]
	}
	return g.re.MatchString(url)
}

// String is the pattern as given.
func (g *Glob) String() string { return g.src }

// QuoteGlob is a pattern that matches exactly s (fragment aside).
func QuoteGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\*{},`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
