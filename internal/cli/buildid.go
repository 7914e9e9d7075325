package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// buildID names this build: a hash of the executable's content, so two
// byte-identical binaries are the same build wherever they were copied to,
// and a CLI notices a daemon started from another binary. Hashing a 16 MB
// binary takes about 10 ms, so it is computed once, and only by the
// commands that need it (those that talk to the daemon, and version);
// help and usage errors never pay for it.
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return Version
	}
	id, err := fileBuildID(exe)
	if err != nil {
		return Version
	}
	return id
})

// fileBuildID is the first 12 hex digits of the SHA-256 of the file's
// content, read as a stream.
func fileBuildID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)[:6]), nil
}
