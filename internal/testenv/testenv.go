// Package testenv says what a test needs of the machine beyond the Go
// toolchain and Chromium: Node.js and the real-app corpus (widget
// libraries installed from npm). A test that lacks such an optional part
// skips, naming the exact command that provides it, so `go test ./...`
// on a fresh clone is honest without Node. `make test` installs every
// part and sets LOUPE_TEST_REQUIRE=1: there a missing part fails the
// test, so the gate never passes by skipping.
package testenv

import (
	"crypto/sha256"
	"encoding/hex"
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

// Corpus returns the real-app corpus's node_modules directory for the
// corpus in dir (e2e/realapps from the test's package), or skips t. It
// is dir/node_modules when someone ran npm ci there, and otherwise the
// copy scripts/corpus.sh (make corpus) installs in loupe's cache, keyed
// by the package files, so that a clean clone finds it installed.
func Corpus(t testing.TB, dir string) string {
	t.Helper()
	here := filepath.Join(dir, "node_modules")
	if installed(here) {
		return here
	}
	if cached, err := CorpusCache(dir); err == nil && installed(cached) {
		return cached
	}
	Missing(t, "the real-app corpus", "`make corpus` (npm ci of e2e/realapps's lock, into loupe's cache)")
	return ""
}

// CorpusCache is where scripts/corpus.sh installs the corpus of dir:
// CACHE/loupe/corpus/KEY/node_modules, KEY being the first 16 hex digits
// of the SHA-256 of package.json followed by package-lock.json.
func CorpusCache(dir string) (string, error) {
	h := sha256.New()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "loupe", "corpus", hex.EncodeToString(h.Sum(nil))[:16], "node_modules"), nil
}

func installed(modules string) bool {
	_, err := os.Stat(filepath.Join(modules, ".package-lock.json"))
	return err == nil
}

// LongEnv is the variable that runs the exhaustive variants of the tests
// (the 60-step cache runs, the huge page, the soak): make test-long sets
// it. Without it `go test` runs the short ones, -short or not, so that
// `go test ./...` is as quick as the gate.
const LongEnv = "LOUPE_TEST_LONG"

// Long reports whether the exhaustive variants run (LongEnv=1).
func Long() bool { return os.Getenv(LongEnv) == "1" }
