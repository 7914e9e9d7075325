package chromeprofile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestActiveEndpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := ActiveEndpoint(dir); !errors.Is(err, ErrNoDebugging) {
		t.Fatalf("no file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "DevToolsActivePort"), []byte("9222\n/devtools/browser/0b1c2d3e-aaaa\n"), 0o600)
	got, err := ActiveEndpoint(dir)
	if err != nil || got != "ws://127.0.0.1:9222/devtools/browser/0b1c2d3e-aaaa" {
		t.Fatalf("endpoint %q, %v", got, err)
	}
	for _, bad := range []string{"", "9222", "x\n/devtools/browser/a", "0\n/devtools/browser/a", "9222\n/json/list",
		"9222\n/devtools/browser/a b", "9222\n/devtools/browser/a\nmore"} {
		if _, err := ParseActivePort(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
	for _, ch := range Channels {
		if d, err := UserDataDir(ch); err != nil || d == "" {
			t.Errorf("%s: %q %v", ch, d, err)
		}
	}
	if _, err := UserDataDir("nightly"); err == nil {
		t.Error("an unknown channel has a profile")
	}
}

// FuzzParseActivePort: whatever the file holds, the endpoint read is a
// loopback websocket URL to a browser target, or an error.
func FuzzParseActivePort(f *testing.F) {
	f.Add("9222\n/devtools/browser/0b1c2d3e\n")
	f.Add("65535\r\n/devtools/browser/x\r\n")
	f.Add("1\n/devtools/browser/\n")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseActivePort(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(u, "ws://127.0.0.1:") || !strings.Contains(u, "/devtools/browser/") || strings.ContainsAny(u, " ?#") {
			t.Fatalf("read %q from %q", u, s)
		}
	})
}
