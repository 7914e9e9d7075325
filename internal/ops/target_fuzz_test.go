package ops

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/locator"
)

// badInput fails unless err is a BAD_INPUT error.
func badInput(t *testing.T, what string, err error) {
	t.Helper()
	if e, ok := apitype.As(err); !ok || e.Code != apitype.BadInput {
		t.Fatalf("%s: error %v (%T) is not BAD_INPUT", what, err, err)
	}
}

// FuzzCheckTarget: a target is accepted exactly when it is a ref or a
// locator (or empty and optional), and refused with BAD_INPUT otherwise.
func FuzzCheckTarget(f *testing.F) {
	for _, s := range []string{
		"", "e12", "@e12", "@", "@e0", "e01", "button", "#id", `role=button[name="Save"]`, "role=",
		`role=iframe[name="Pay"] >> role=button`, "a >> ", "testid='", "@#id", "12",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, required bool) {
		err := checkTarget("ref", s, required)
		_, rerr := locator.ParseRef(s)
		_, lerr := locator.ParseLocator(s)
		want := s == "" && !required || s != "" && (rerr == nil || lerr == nil)
		if (err == nil) != want {
			t.Fatalf("checkTarget(%q, %v) = %v; ref error %v, locator error %v", s, required, err, rerr, lerr)
		}
		if err != nil {
			badInput(t, "checkTarget("+strconv.Quote(s)+")", err)
		}
	})
}

// passThrough are the prefixes NormalizeURL passes as written.
var passThrough = []string{"about:", "data:", "file:", "chrome:", "blob:"}

// FuzzNormalizeURL: an accepted address has a scheme a browser navigates
// to, a host and a port in 1..65535 (or is a local or browser page passed
// as written), and normalising it again changes nothing; the rest is
// refused with BAD_INPUT.
func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"example.com", "localhost:8080/a", "[::1]:8080/", "127.0.0.1", "https://x.test/a b", "HTTP://Example.COM/A",
		"ws://x.test/socket", "ftp://files.test/f", "about:blank", "data:text/html,<p>hi</p>", "FILE:///tmp/x.html",
		"javascript:alert(1)", "mailto:x@y", "http://", "//example.com", "localhost:99999", "https://example.com:0",
		"http://[fe80::1%25eth0]:80/", "user:pw@x.test", "x.test:80@evil.test", "http:8080", "http://x.test/%zz",
		"http://ü.test/ä?ö#ü", "  example.com \n", "http://x.test:/", "http://x.test?", "http://x.test/#",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := NormalizeURL(raw)
		if err != nil {
			badInput(t, "NormalizeURL("+strconv.Quote(raw)+")", err)
			return
		}
		if again, err := NormalizeURL(u); err != nil || again != u {
			t.Fatalf("NormalizeURL(%q) = %q, but that normalises to %q, %v", raw, u, again, err)
		}
		for _, p := range passThrough {
			if len(u) >= len(p) && strings.EqualFold(u[:len(p)], p) {
				if u != strings.TrimSpace(raw) {
					t.Fatalf("NormalizeURL(%q) = %q, want it as written", raw, u)
				}
				return
			}
		}
		p, err := url.Parse(u)
		if err != nil {
			t.Fatalf("NormalizeURL(%q) = %q, which does not parse: %v", raw, u, err)
		}
		switch p.Scheme {
		case "http", "https", "ws", "wss", "ftp":
		default:
			t.Fatalf("NormalizeURL(%q) = %q, scheme %q", raw, u, p.Scheme)
		}
		if p.Hostname() == "" {
			t.Fatalf("NormalizeURL(%q) = %q, no host", raw, u)
		}
		if port := p.Port(); port != "" {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
				t.Fatalf("NormalizeURL(%q) = %q, port %q", raw, u, port)
			}
		}
	})
}
