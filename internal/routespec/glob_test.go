package routespec

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// The pattern language, case by case: what Playwright's users write.
func TestGlobMatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, url string
		want         bool
	}{
		{"**/api/*", "http://127.0.0.1:8080/api/users", true},
		{"**/api/*", "http://127.0.0.1:8080/api/users/7", false},
		{"**/api/**", "http://127.0.0.1:8080/api/users/7", true},
		{"**/api/*", "http://127.0.0.1:8080/api/users?page=2", true},
		{"**/*.{png,jpg}", "https://cdn.example/a/b/logo.png", true},
		{"**/*.{png,jpg}", "https://cdn.example/a/b/logo.jpg", true},
		{"**/*.{png,jpg}", "https://cdn.example/a/b/logo.gif", false},
		{"http://a.example/x", "http://a.example/x", true},
		{"http://a.example/x", "http://a.example/x#frag", true},
		{"http://a.example/x", "http://a.example/xy", false},
		{"http://a.example/x?q=1", "http://a.example/x?q=1", true},
		{"http://a.example/x?q=1", "http://a.example/xq=1", false}, // ? is literal
		{"**", "anything at all", true},
		{"*", "http://a/b", false},
		{`**/a\*b`, "http://h/a*b", true},
		{`**/a\*b`, "http://h/axxb", false},
		{"**/{a,b}/c", "http://h/b/c", true},
		{"**/x,y", "http://h/x,y", true},
		{"**/x}y", "http://h/x}y", true},
		{"HTTP://A/**", "http://a/b", false}, // case matters, as in Playwright
		{"**/a.b", "http://h/aXb", false},    // . is literal
	} {
		g, err := Compile(tc.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := g.Match(tc.url); got != tc.want {
			t.Errorf("%q on %q: %v, want %v", tc.pattern, tc.url, got, tc.want)
		}
	}
}

// Patterns that cannot mean anything are refused with a reason.
func TestGlobRefuses(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", `**/a\`, "**/{a,{b}}", "**/{a,b", strings.Repeat("a", MaxPattern+1), "{" + strings.Repeat("a,", maxAlternatives) + "b}"} {
		if _, err := Compile(p); !errors.Is(err, errPattern) {
			t.Errorf("%.40q: %v, want a pattern error", p, err)
		}
	}
}

// A quoted string matches itself and nothing else.
func TestQuoteGlob(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"http://h/a*b{c,d}\\e", "http://h/?q=1", ""} {
		if s == "" {
			continue
		}
		g, err := Compile(QuoteGlob(s))
		if err != nil {
			t.Fatal(err)
		}
		if !g.Match(s) || g.Match(s+"x") {
			t.Errorf("QuoteGlob(%q) = %q does not match exactly", s, QuoteGlob(s))
		}
	}
}

// FuzzGlob: any pattern compiles or is refused without a panic, matching
// never panics, and a quoted URL always matches itself.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/api/*", "**/*.{png,jpg}", `a\*b`, "{a,b", "http://h/?q=1#x", "***", "{,}", "\\"} {
		f.Add(s, "http://127.0.0.1/api/users")
	}
	f.Fuzz(func(t *testing.T, pattern, url string) {
		if g, err := Compile(pattern); err == nil {
			g.Match(url)
		} else if !errors.Is(err, errPattern) {
			t.Fatalf("%q: an error that is not a pattern error: %v", pattern, err)
		}
		if url == "" || !utf8.ValidString(url) || strings.Contains(url, "#") || len(QuoteGlob(url)) > MaxPattern {
			return
		}
		g, err := Compile(QuoteGlob(url))
		if err != nil {
			t.Fatalf("quoted %q: %v", url, err)
		}
		if !g.Match(url) {
			t.Fatalf("quoted %q does not match itself", url)
		}
	})
}
