package ops

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/locator"
)

// usage makes a usage error: BAD_INPUT, nothing executed.
func usage(format string, args ...any) *apitype.Error {
	return apitype.Errorf(apitype.BadInput, format, args...)
}

// fld names an input field by its wire name in a message; each front end
// renders it in its own terms (a CLI flag or argument, an MCP argument).
func fld(name string) string { return apitype.Field(name) }

// checkTarget validates the element field name (by wire name): a ref such as @e12 or e12, or a
// locator such as role=button[name="Save"], testid=save, css=form button,
// #email, or frame steps joined by >>.
func checkTarget(name, t string, required bool) error {
	if t == "" {
		if required {
			return usage("missing %s (a ref such as e12 from a snapshot, or a locator)", fld(name))
		}
		return nil
	}
	if _, err := locator.ParseRef(t); err == nil {
		return nil
	}
	if strings.HasPrefix(t, "@") {
		_, err := locator.ParseRef(t)
		return usage("%s: %v", fld(name), err)
	}
	if _, err := locator.ParseLocator(t); err != nil {
		if strings.ContainsAny(t, "=#") || strings.Contains(t, ">>") {
			return usage("%s: %v", fld(name), err) // meant as a locator: say what is wrong with it
		}
		return usage("%s: %q is not a ref (e12, @e12) or a locator (role=button[name=\"Save\"], testid=…, css=…, #id)", fld(name), t)
	}
	return nil
}

// NormalizeURL checks an address and completes a bare host: "example.com"
// becomes https://example.com, and a loopback host ("localhost:8080",
// "127.0.0.1/x", "[::1]") gets http://. Schemes a browser cannot navigate
// to, and addresses without a host, are refused.
func NormalizeURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", usage("missing URL")
	}
	lower := strings.ToLower(s)
	for _, p := range []string{"about:", "data:", "file:", "chrome:", "blob:"} {
		if strings.HasPrefix(lower, p) {
			return s, nil
		}
	}
	if strings.HasPrefix(lower, "javascript:") {
		return "", usage("%q: javascript: URLs are not navigable; use eval", raw)
	}
	if !strings.Contains(s, "://") {
		if i := strings.IndexByte(s, ':'); i > 0 && !strings.ContainsAny(s[:i], "./[") && !isPort(s[i+1:]) {
			// scheme:opaque such as mailto:x@y
			return "", usage("%q: unsupported scheme %q", raw, strings.ToLower(s[:i]))
		}
		u, err := url.Parse("http://" + s)
		if err != nil {
			return "", usage("%q is not a URL: %v", raw, err)
		}
		if isLoopback(u.Hostname()) {
			s = "http://" + s
		} else {
			s = "https://" + s
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", usage("%q is not a URL: %v", raw, err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss", "ftp":
	default:
		return "", usage("%q: unsupported scheme %q", raw, u.Scheme)
	}
	if u.Hostname() == "" || strings.ContainsAny(u.Host, " \t") {
		return "", usage("%q is not a URL: no host", raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", usage("%q: port %s is not between 1 and 65535", raw, p)
		}
	}
	// Go keeps a query as written, spaces and all; a browser sends it
	// percent-encoded, and a trailing space would not survive the next
	// TrimSpace (a fuzz find: "x.test? #").
	u.RawQuery = escapeQuery(u.RawQuery)
	out := u.String()
	// Go prints some hosts it parsed (a zone with a raw non-ASCII byte)
	// as escapes its own parser refuses; such an address is not one a
	// browser could be sent to either.
	if back, err := url.Parse(out); err != nil || back.String() != out {
		return "", usage("%q is not a URL: its host does not survive escaping", raw)
	}
	return out, nil
}

// escapeQuery percent-encodes what a browser encodes in a query: control
// characters, space, '"', '<', '>', DEL and every byte of a non-ASCII
// character. Escapes already there are kept, so it is idempotent.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' {
			if b.Len() == 0 {
				b.WriteString(q[:i])
			}
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		} else if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return q
	}
	return b.String()
}

// isPort reports whether s starts with a port number (as in
// "localhost:8080/x").
func isPort(s string) bool {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n > 0 && (n == len(s) || s[n] == '/' || s[n] == '?' || s[n] == '#')
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Millis is a duration in whole milliseconds: a number on the wire
// (timeout_ms, the one name and unit of every timeout), and on a command
// line either a Go duration ("500ms", "5s") or a bare number of
// milliseconds.
type Millis int64

// Duration is m as a time.Duration.
func (m Millis) Duration() time.Duration { return time.Duration(m) * time.Millisecond }

// MaxMillis bounds every timeout: a day. Beyond it a deadline is a typing
// slip (or an overflow), not a wait anyone means.
const MaxMillis = Millis(24 * time.Hour / time.Millisecond)

// checkMillis refuses a timeout that is negative, below a millisecond
// (but not zero: zero is the default) or beyond MaxMillis.
func checkMillis(s string, n Millis, sub bool) error {
	switch {
	case n < 0:
		return fmt.Errorf("%s: a timeout cannot be negative", s)
	case n == 0 && sub:
		return fmt.Errorf("%s: want at least 1ms", s)
	case n > MaxMillis:
		return fmt.Errorf("%s: want at most 24h", s)
	}
	return nil
}

// UnmarshalText parses a command-line value.
func (m *Millis) UnmarshalText(b []byte) error {
	s := string(b)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if err := checkMillis(s, Millis(n), false); err != nil {
			return err
		}
		*m = Millis(n)
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q: want a duration such as 500ms or 5s", s)
	}
	if err := checkMillis(s, Millis(d.Milliseconds()), d > 0); err != nil {
		return err
	}
	*m = Millis(d.Milliseconds())
	return nil
}

// UnmarshalJSON takes a number of milliseconds, or a duration string.
func (m *Millis) UnmarshalJSON(b []byte) error {
	var n float64
	if err := json.Unmarshal(b, &n); err == nil {
		if n < 0 || n > float64(MaxMillis) { // checked before the conversion can overflow
			return checkMillis(string(b), Millis(math.Copysign(float64(MaxMillis+1), n)), false)
		}
		if n != math.Trunc(n) {
			return fmt.Errorf("%v: want whole milliseconds", n)
		}
		*m = Millis(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a number of milliseconds")
	}
	return m.UnmarshalText([]byte(s))
}
