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
	"strings"
)

// ErrNotFound means no Chromium-based browser was found on this machine.
var ErrNotFound = errors.New("no Chromium found: install the chromium package or set LOUPE_CHROMIUM")

// shellPaths and shellNames are Chromium's headless shell (the "old
// headless" build), tried first for a browser that runs headless: the same
// engine as the full browser (Blink, V8, the protocol) without the
// browser's window, profile and services layer. Measured on Chromium 156
// here (BENCHMARKS.md): it starts at about 40% of the full browser's CPU
// and ran loupe's engine tests at 56% of it, the e2e tests at 66%. What
// it lacks of a person's Chrome: the popup blocker (loupe blocks popups
// itself, package engine/popups), the PDF viewer (a PDF is a download),
// extensions (loupe turns them off). LOUPE_CHROMIUM naming the full
// browser runs that headless instead; a headed session always does.
// Debian's /usr/bin wrapper runs the binary without exec, leaving a shell
// between loupe and the browser, so the binary's own path comes first.
var (
	shellPaths = []string{"/usr/lib/chromium/chromium-headless-shell"}
	shellNames = []string{"chrome-headless-shell", "headless_shell", "chromium-headless-shell"}
)

// IsHeadlessShell reports whether a browser binary is a headless shell
// (by its name, as the shells are named): it has no popup blocker.
func IsHeadlessShell(binary string) bool {
	n := filepath.Base(binary)
	return strings.Contains(n, "headless-shell") || strings.Contains(n, "headless_shell")
}

// candidates are tried in order after LOUPE_CHROMIUM (and, headless, the
// headless shell): names on PATH, then the usual install locations.
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
// must exist); else, for a headless browser, the headless shell if it is
// installed; else the first of the usual names on PATH, else the first
// usual install path that exists.
func Find(env string, headless bool) (string, error) {
	if env != "" {
		p, err := exec.LookPath(env)
		if err != nil {
			return "", fmt.Errorf("LOUPE_CHROMIUM=%s: %w", env, err)
		}
		return filepath.Abs(p)
	}
	if headless {
		if p, ok := existing(shellPaths); ok {
			return p, nil
		}
		if p, ok := onPath(shellNames); ok {
			return p, nil
		}
	}
	if p, ok := onPath(pathNames); ok {
		return p, nil
	}
	if p, ok := existing(knownPaths); ok {
		return p, nil
	}
	return "", ErrNotFound
}

// existing returns the first of paths that is an executable file.
func existing(paths []string) (string, bool) {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// onPath returns the absolute path of the first of names found on PATH.
func onPath(names []string) (string, bool) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, true
			}
		}
	}
	return "", false
}
