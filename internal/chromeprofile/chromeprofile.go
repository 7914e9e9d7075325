// Package chromeprofile finds a person's own Chrome: the channels loupe
// knows, where each keeps its profile, and the DevTools endpoint a running
// Chrome writes there (DevToolsActivePort) while remote debugging is on.
// It reads files only; the operation contract names the channels with it,
// and attaching to the endpoint is the engine's.
package chromeprofile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Channels are the Chrome builds whose profiles loupe knows.
var Channels = []string{"stable", "beta", "canary", "chromium"}

// UserDataDir is the default profile directory of a Chrome channel on
// this system.
func UserDataDir(channel string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	type dirs struct{ linux, mac, windows string }
	known := map[string]dirs{
		"stable":   {".config/google-chrome", "Library/Application Support/Google/Chrome", `Google\Chrome\User Data`},
		"beta":     {".config/google-chrome-beta", "Library/Application Support/Google/Chrome Beta", `Google\Chrome Beta\User Data`},
		"canary":   {".config/google-chrome-unstable", "Library/Application Support/Google/Chrome Canary", `Google\Chrome SxS\User Data`},
		"chromium": {".config/chromium", "Library/Application Support/Chromium", `Chromium\User Data`},
	}
	d, ok := known[channel]
	if !ok {
		return "", fmt.Errorf("channel %q: want one of %s", channel, strings.Join(Channels, ", "))
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, d.mac), nil
	case "windows":
		if la := os.Getenv("LOCALAPPDATA"); la != "" {
			return filepath.Join(la, d.windows), nil
		}
		return filepath.Join(home, "AppData", "Local", d.windows), nil
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, strings.TrimPrefix(d.linux, ".config/")), nil
	}
	return filepath.Join(home, d.linux), nil
}

// ErrNoDebugging means the profile's browser does not have remote
// debugging on (no DevToolsActivePort).
var ErrNoDebugging = errors.New("remote debugging is off")

// ActiveEndpoint reads the DevTools endpoint a running browser wrote into
// its profile directory: ws://127.0.0.1:PORT/devtools/browser/ID.
func ActiveEndpoint(userDataDir string) (string, error) {
	f, err := os.Open(filepath.Join(userDataDir, "DevToolsActivePort"))
	if errors.Is(err, os.ErrNotExist) {
		return "", ErrNoDebugging
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", err
	}
	return ParseActivePort(string(b))
}

// ParseActivePort reads DevToolsActivePort's two lines: the port, and the
// browser target's path.
func ParseActivePort(s string) (string, error) {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n")), "\n")
	if len(lines) != 2 {
		return "", fmt.Errorf("DevToolsActivePort: want a port and a path, got %d lines", len(lines))
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || port < 1 || port > 65535 {
		return "", fmt.Errorf("DevToolsActivePort: port %.20q", lines[0])
	}
	path := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(path, "/devtools/browser/") || strings.ContainsAny(path, " ?#\\") || len(path) > 200 {
		return "", fmt.Errorf("DevToolsActivePort: path %.64q", path)
	}
	return fmt.Sprintf("ws://127.0.0.1:%d%s", port, path), nil
}
