// Package chromium finds, launches, attaches to and reaps Chromium browsers.
//
// A launched browser runs headless in its own process group with a private
// profile, speaking CDP over a pipe. Three things make sure it never outlives
// its owner: Stop ends the whole process group; the kernel sends it SIGKILL
// when the launching process dies (Pdeathsig), and Chromium exits by itself
// when its pipe closes; and a pid file naming the browser and its owner
// lets the next daemon or MCP server start reap a browser that survived
// its owner anyway (see Reap).
//
// No browser is ever downloaded: loupe uses the one installed on the
// machine.
package chromium

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ErrNotFound means no Chromium-based browser was found on this machine.
var ErrNotFound = errors.New("no Chromium found: install the chromium package or set LOUPE_CHROMIUM")

// candidates are tried in order after LOUPE_CHROMIUM: names on PATH, then
// the usual install locations.
var (
	pathNames  = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}
	knownPaths = []string{
		"/usr/bin/chromium",
		"/usr/bin/chromium-browser",
		"/usr/lib/chromium/chromium",
		"/snap/bin/chromium",
		"/usr/bin/google-chrome",
		"/opt/google/chrome/chrome",
		"/Applications/Chromium.app/Contents/MacOS/Chromium",
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
	}
)

// Find returns the browser binary to launch: the value of env, if set (it
// must exist), else the first of the usual names on PATH, else the first
// usual install path that exists.
func Find(env string) (string, error) {
	if env != "" {
		p, err := exec.LookPath(env)
		if err != nil {
			return "", fmt.Errorf("LOUPE_CHROMIUM=%s: %w", env, err)
		}
		return filepath.Abs(p)
	}
	for _, n := range pathNames {
		if p, err := exec.LookPath(n); err == nil {
			return filepath.Abs(p)
		}
	}
	for _, p := range knownPaths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", ErrNotFound
}
