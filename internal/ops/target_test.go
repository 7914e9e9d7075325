package ops

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

func wantBadInput(t *testing.T, what string, err error, mention string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	e, ok := apitype.As(err)
	if !ok || e.Code != apitype.BadInput {
		t.Errorf("%s: error %v is not BAD_INPUT", what, err)
		return
	}
	if !strings.Contains(err.Error(), mention) {
		t.Errorf("%s: error %q does not mention %q", what, err, mention)
	}
}

func TestNormalizeURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// A bare host gets https, a local one http.
		{"example.com", "https://example.com"},
		{"Example.com", "https://Example.com"},
		{"example.com:8080", "https://example.com:8080"},
		{"example.com/path?q=1#frag", "https://example.com/path?q=1#frag"},
		{"  example.com \n", "https://example.com"},
		{"localhost", "http://localhost"},
		{"localhost:8080", "http://localhost:8080"},
		{"localhost:8080/a/b", "http://localhost:8080/a/b"},
		{"127.0.0.1", "http://127.0.0.1"},
		{"127.0.0.1:3000/x", "http://127.0.0.1:3000/x"},
		{"[::1]", "http://[::1]"},
		{"[::1]:8080/", "http://[::1]:8080/"},
		{"foo.localhost:3000", "http://foo.localhost:3000"},
		// Public hosts that merely start like loopback ones stay https.
		{"localhost.example.com", "https://localhost.example.com"},
		{"localhostfoo.com", "https://localhostfoo.com"},
		{"127.example.com", "https://127.example.com"},
		// Full URLs of navigable schemes pass, normalised.
		{"https://example.com/", "https://example.com/"},
		{"http://x.test/a b", "http://x.test/a%20b"},
		{"HTTP://Example.COM/A", "http://Example.COM/A"},
		// A query is sent percent-encoded, as a browser sends it; escapes
		// already there stay.
		{"x.test? #", "https://x.test?%20"},
		{"http://x.test/?q=a b&r=\u00e9%41", "http://x.test/?q=a%20b&r=%C3%A9%41"},
		{"ws://x.test/socket", "ws://x.test/socket"},
		{"wss://x.test", "wss://x.test"},
		{"ftp://files.test/f", "ftp://files.test/f"},
		// Browser-internal and local schemes pass as written.
		{"about:blank", "about:blank"},
		{"data:text/html,<p>hi</p>", "data:text/html,<p>hi</p>"},
		{"file:///tmp/x.html", "file:///tmp/x.html"},
		{"FILE:///tmp/x.html", "FILE:///tmp/x.html"},
		{"chrome://version", "chrome://version"},
		{"blob:https://x.test/1234", "blob:https://x.test/1234"},
	} {
		got, err := NormalizeURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestNormalizeURLRefuses(t *testing.T) {
	for _, tc := range []struct{ in, mention string }{
		{"", "missing URL"},
		{"   ", "missing URL"},
		{"javascript:alert(1)", "javascript: URLs are not navigable"},
		{"JavaScript:void(0)", "javascript: URLs are not navigable"},
		{"gopher://x.test", `unsupported scheme "gopher"`},
		{"view-source:https://x.test", `unsupported scheme "view-source"`},
		{"http://", "no host"},
		{"http:///path", "no host"},
		{"//example.com", "no host"},
		{"://x", "is not a URL"},
		{"example.com:abc", "is not a URL"},
		{"http://exa mple.com", "is not a URL"},
		{"http://[::1", "is not a URL"},
		{"mailto:x@y", `unsupported scheme "mailto"`},
		{"http://:80", "no host"},
		{"localhost:99999", "port 99999 is not between 1 and 65535"},
		{"http://127.0.0.1:65536/x", "port 65536"},
		{"https://example.com:0", "port 0"},
	} {
		got, err := NormalizeURL(tc.in)
		wantBadInput(t, "NormalizeURL("+tc.in+") = "+got, err, tc.mention)
	}
}

func TestCheckTarget(t *testing.T) {
	for _, tc := range []struct {
		target   string
		required bool
	}{
		{"@e12", true},
		{"e12", true},
		{"e1", false},
		{"", false},
	} {
		if err := checkTarget("ref", tc.target, tc.required); err != nil {
			t.Errorf("checkTarget(%q, %v): %v", tc.target, tc.required, err)
		}
	}
	wantBadInput(t, "missing required", checkTarget("ref", "", true), "missing {field:ref}")
	wantBadInput(t, "missing --target", checkTarget("within", "", true), "missing {field:within}")
	for _, bad := range []string{"x1", "e0", "e", "e01", "e-1", "e+1", "@", "button", "12"} {
		wantBadInput(t, "checkTarget("+bad+")", checkTarget("ref", bad, false), "{field:ref}: ")
		wantBadInput(t, "checkTarget("+bad+")", checkTarget("ref", bad, true), "not a ref")
	}
	// Locators are targets too; a malformed one says what is wrong with it.
	for _, good := range []string{"#id", `role=button[name="Save"]`, "testid=save", "css=form button", `role=iframe[name="Pay"] >> role=button`} {
		if err := checkTarget("ref", good, true); err != nil {
			t.Errorf("checkTarget(%q): %v", good, err)
		}
	}
	for _, bad := range []string{`role=button[name=Save]`, "text=x", "role=", "a >> "} {
		wantBadInput(t, "checkTarget("+bad+")", checkTarget("ref", bad, true), "{field:ref}: ")
	}
}

// The inputs that take refs validate them before any browser is touched.
func TestValidateTargets(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Validator
		ok   bool
	}{
		{"click ref", &ClickIn{Target: "@e1"}, true},
		{"click bad ref", &ClickIn{Target: "e0"}, false},
		{"click no ref", &ClickIn{}, false},
		{"click bad button", &ClickIn{Target: "e1", Button: "back"}, false},
		{"click modifiers", &ClickIn{Target: "e1", Modifiers: "Control+Shift"}, true},
		{"click bad modifiers", &ClickIn{Target: "e1", Modifiers: "Hyper"}, false},
		{"type without target", &TypeIn{Text: "x"}, true},
		{"type with target", &TypeIn{Target: "@e2", Text: "x"}, true},
		{"type bad target", &TypeIn{Target: "x2", Text: "x"}, false},
		{"type no text", &TypeIn{Target: "e2"}, false},
		{"fill", &FillIn{Target: "e3"}, true},
		{"fill bad", &FillIn{Target: "3"}, false},
		{"press", &PressIn{Keys: []string{"Control+A", "Enter"}}, true},
		{"press none", &PressIn{}, false},
		{"press bad key", &PressIn{Keys: []string{"Control+Bogus"}}, false},
		{"select", &SelectIn{Target: "e4", Values: []string{"a"}}, true},
		{"select no values", &SelectIn{Target: "e4"}, false},
		{"wait text", &WaitIn{Text: "hi"}, true},
		{"wait nothing", &WaitIn{}, false},
		{"wait two", &WaitIn{Text: "hi", Load: true}, false},
		{"wait bad target", &WaitIn{Target: "e01"}, false},
		{"wait timeout", &WaitIn{Load: true, Timeout: 5000}, true},
		{"wait negative timeout", &WaitIn{Load: true, Timeout: -1000}, false},
		{"wait timeout too long", &WaitIn{Load: true, Timeout: 120000}, false},
		{"screenshot", &ScreenshotIn{}, true},
		{"screenshot target and full", &ScreenshotIn{Target: "e1", Full: true}, false},
		{"text bad target", &TextIn{Target: "nope"}, false},
	} {
		err := tc.in.Validate()
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok {
			wantBadInput(t, tc.name, err, "")
		}
	}
}

// TestNumbersAtTheEdge: wheel deltas are finite and bounded; timeouts are
// whole, non-negative, at least a millisecond when given as a duration,
// and at most a day (int64 max never wraps to a negative deadline).
func TestNumbersAtTheEdge(t *testing.T) {
	for _, in := range []ScrollIn{{DY: 1e308}, {DX: -1e7}, {DY: math.NaN()}, {DX: math.Inf(1)}} {
		wantBadInput(t, fmt.Sprintf("scroll %+v", in), in.Validate(), "CSS pixels between")
	}
	if err := (&ScrollIn{DY: 1e6}).Validate(); err != nil {
		t.Errorf("a million pixels: %v", err)
	}
	for raw, want := range map[string]string{
		"-5": "negative", "-5ms": "negative", "1ns": "at least 1ms", "25h": "at most 24h",
		"9223372036854775807": "at most 24h", "soon": "want a duration",
	} {
		var m Millis
		if err := m.UnmarshalText([]byte(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Millis text %q: %v, want %q", raw, err, want)
		}
	}
	for raw, want := range map[string]string{"-5": "negative", "9223372036854775807": "at most 24h", "1e300": "at most 24h", "1.5": "whole"} {
		var m Millis
		if err := m.UnmarshalJSON([]byte(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Millis JSON %s: %v, want %q", raw, err, want)
		}
	}
	var m Millis
	if err := m.UnmarshalJSON([]byte("1500")); err != nil || m.Duration() != 1500*time.Millisecond {
		t.Errorf("1500 = %v, %v", m, err)
	}
	if err := m.UnmarshalText([]byte("0")); err != nil || m != 0 {
		t.Errorf("0 (the default) = %v, %v", m, err)
	}
}
