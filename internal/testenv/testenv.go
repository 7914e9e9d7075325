// Package testenv says what a test needs of the machine beyond the Go
// toolchain and Chromium: Node.js and the real-app corpus (widget
// libraries installed from npm). A test that lacks such an optional part
// skips, naming the exact command that provides it, so `go test ./...`
// on a fresh clone is honest without Node. `make test` installs every
// part and sets LOUPE_TEST_REQUIRE=1: there a missing part fails the
// test, so the gate never passes by skipping.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RequireEnv is the variable that turns a missing optional part from a
// skip into a failure (make test sets it).
const RequireEnv = "LOUPE_TEST_REQUIRE"

// Missing skips t (or fails it under RequireEnv) because what is absent;
// command is what provides it.
func Missing(t testing.TB, what, command string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s is missing (%s is set, so this is a failure, not a skip): run %s", what, RequireEnv, command)
	}
	t.Skipf("%s is missing: run %s", what, command)
}

// Node returns the path of node, or skips t.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "Node.js", "`scripts/ensure-deb.sh node nodejs` (make corpus installs it)")
	}
	return p
}

// Corpus checks that the real-app corpus is installed in dir (e2e/realapps
// from the test's package), or skips t.
func Corpus(t testing.TB, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err != nil {
		Missing(t, "the real-app corpus (e2e/realapps/node_modules)", "`make corpus` (npm ci in e2e/realapps, at the versions its lock pins)")
	}
}
