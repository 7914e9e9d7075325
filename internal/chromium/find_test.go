package chromium

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindPrefersTheShellHeadless: a headless browser is the headless
// shell when one is installed, a headed one the full browser; a browser
// LOUPE_CHROMIUM names is used either way.
func TestFindPrefersTheShellHeadless(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full, shell, mine := exe("chromium"), exe("chrome-headless-shell"), exe("my-chrome")
	t.Setenv("PATH", dir)
	saved := [...][]string{shellPaths, knownPaths}
	t.Cleanup(func() { shellPaths, knownPaths = saved[0], saved[1] })
	shellPaths, knownPaths = nil, nil

	for _, c := range []struct {
		env      string
		headless bool
		want     string
	}{
		{"", true, shell},
		{"", false, full},
		{mine, true, mine},
		{mine, false, mine},
	} {
		if got, err := Find(c.env, c.headless); err != nil || got != c.want {
			t.Errorf("Find(%q, headless %v) = %q, %v; want %q", c.env, c.headless, got, err, c.want)
		}
	}
	os.Remove(shell)
	if got, _ := Find("", true); got != full {
		t.Errorf("with no shell, a headless browser is %q, want the full browser %q", got, full)
	}
	os.Remove(full)
	if _, err := Find("", false); err != ErrNotFound {
		t.Errorf("with no browser: %v, want ErrNotFound", err)
	}
}

func TestIsHeadlessShell(t *testing.T) {
	for bin, want := range map[string]bool{
		"/usr/lib/chromium/chromium-headless-shell": true, "/opt/chrome/chrome-headless-shell": true,
		"/x/headless_shell": true, "/usr/bin/chromium": false, "/usr/bin/google-chrome": false,
	} {
		if got := IsHeadlessShell(bin); got != want {
			t.Errorf("IsHeadlessShell(%q) = %v", bin, got)
		}
	}
}
