package nav_test

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/nav"
)

func TestMatchURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, url string
		want         bool
	}{
		// Without '*' a pattern matches when the URL contains it.
		{"/done", "https://x.test/done?ok=1", true},
		{"x.test", "https://x.test/", true},
		{"https://x.test/done", "https://x.test/done", true},
		{"/Done", "https://x.test/done", false},
		{"/done", "https://x.test/", false},
		{"", "https://x.test/", true},
		{"", "", true},

		// With '*' the pattern is a glob over the whole URL.
		{"*", "", true},
		{"*", "https://x.test/a/b", true},
		{"**", "https://x.test/", true},
		{"https://x.test/*", "https://x.test/a/b/c?q=1", true},
		{"https://x.test/*", "https://x.test/", true},
		{"https://x.test/*", "https://x.test", false},
		{"https://x.test/*", "http://x.test/a", false},
		{"*/done", "https://x.test/a/done", true},
		{"*/done", "https://x.test/a/done?x=1", false}, // anchored at the end
		{"*/done*", "https://x.test/a/done?x=1", true},
		{"*x.test*", "https://x.test/", true},
		{"*y.test*", "https://x.test/", false},
		{"https://*.test/*/item", "https://shop.test/cart/item", true},
		{"https://*.test/*/item", "https://shop.test/a/b/c/item", true}, // '*' spans '/'
		{"https://*.test/*/item", "https://shop.test/item", false},
		{"https://*.test/*/item", "https://shop.example/a/item", false},
		{"a*b*c", "abc", true},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "acb", false},
		{"a*a", "a", false}, // the two a's cannot share a character
		{"a*a", "aa", true},
		{"ab*b", "ab", false},
		{"ab*b", "abb", true},
		{"*a*a", "a", false},
		{"*a*a", "aa", true},
		{"*ab*ab", "xabyab", true},
		{"*ab*ab", "xab", false},
		{"a*", "a", true},
		{"a*", "ba", false}, // anchored at the start
		{"*.png", "https://x.test/img.png", true},
		{"*.png", "https://x.test/img.png?v=2", false},
		{"https://x.test/?q=*", "https://x.test/?q=a*b", true},
	} {
		if got := nav.MatchURL(tc.pattern, tc.url); got != tc.want {
			t.Errorf("MatchURL(%q, %q) = %v, want %v", tc.pattern, tc.url, got, tc.want)
		}
	}
}
