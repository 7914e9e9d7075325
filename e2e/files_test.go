package e2e

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUploadRefusesDevicesAndPipes: the CLI reads only regular files for
// an upload; /dev/zero, a FIFO and a directory are usage errors at once
// (no 4 GB read, no wait for a writer), and nothing reaches a browser.
func TestUploadRefusesDevicesAndPipes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"/dev/zero", fifo, t.TempDir()} {
		start := time.Now()
		r := e.run("upload", "@e1", f)
		if r.code != 2 || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("upload %s: exit %d %q", f, r.code, r.stderr)
		}
		if d := time.Since(start); d > 30*time.Second { // a FIFO would wait forever, /dev/zero read 4 GB
			t.Errorf("upload %s took %v", f, d)
		}
	}
	if len(e.browserProcesses()) != 0 {
		t.Error("a refused upload started a browser")
	}
}
