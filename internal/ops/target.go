package ops

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// usage makes a usage error: BAD_INPUT, nothing executed.
func usage(format string, args ...any) *apitype.Error {
	return apitype.Errorf(apitype.BadInput, format, args...)
}

// checkTarget validates a TARGET argument: a ref such as @e12 or e12.
func checkTarget(name, t string, required bool) error {
	if t == "" {
		if required {
			return usage("missing %s (a ref such as @e12 from a snapshot)", name)
		}
		return nil
	}
	if _, err := snapshot.ParseRef(t); err != nil {
		return usage("%s: %v", name, err)
	}
	return nil
}

// NormalizeURL checks an address and completes a bare host: "example.com"
// becomes https://example.com, "localhost:8080" http://localhost:8080.
// Schemes a browser cannot navigate to are refused.
func NormalizeURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", usage("missing URL")
	}
	lower := strings.ToLower(s)
	for _, p := range []string{"about:", "data:", "file:", "chrome:", "javascript:", "blob:"} {
		if strings.HasPrefix(lower, p) {
			if p == "javascript:" {
				return "", usage("%q: javascript: URLs are not navigable; use eval", raw)
			}
			return s, nil
		}
	}
	if !strings.Contains(s, "://") {
		host := strings.SplitN(s, "/", 2)[0]
		if strings.HasPrefix(host, "localhost") || strings.HasPrefix(host, "127.") || strings.HasPrefix(host, "[::1]") {
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
	if u.Host == "" || strings.ContainsAny(u.Host, " \t") {
		return "", usage("%q is not a URL: no host", raw)
	}
	return u.String(), nil
}

// durationText shows a duration the way a person writes it.
func durationText(ms int64) string {
	return fmt.Sprintf("%dms", ms)
}
