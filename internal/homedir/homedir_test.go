package homedir

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrepare: a missing home is made readable only by its user; an
// existing one keeps its mode (loupe never changes a directory it did not
// make) unless it is unsafe, which is refused with a clear error.
func TestPrepare(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "fresh")
	if err := Prepare(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Errorf("a new home is %s", fi.Mode().Perm())
	}

	mine := filepath.Join(root, "mine")
	os.Mkdir(mine, 0o755)
	os.Chmod(mine, 0o755)
	if err := Prepare(mine); err != nil {
		t.Errorf("a home of one's own, 0755: %v", err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o755 {
		t.Errorf("its mode was changed to %s", fi.Mode().Perm())
	}

	shared := filepath.Join(root, "shared")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, os.ModeSticky|0o777)
	if err := Prepare(shared); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a shared 1777 home: %v", err)
	}
	if fi, _ := os.Stat(shared); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("the shared home's mode was changed to %s", fi.Mode())
	}

	link := filepath.Join(root, "link")
	os.Symlink(mine, link)
	if err := Prepare(link); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlink home: %v", err)
	}

	long := filepath.Join(root, strings.Repeat("x", 120))
	if err := Prepare(long); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("a home too long for the socket: %v", err)
	}
	if _, err := os.Stat(long); err == nil {
		t.Error("the too-long home was created anyway")
	}
}

// TestDaemonLock: one daemon holds a home's lock; a second is told one
// runs; WaitUnlocked returns once the first has let go, and not before.
func TestDaemonLock(t *testing.T) {
	home := t.TempDir()
	if err := WaitUnlocked(context.Background(), home); err != nil {
		t.Fatalf("no lock file yet: %v", err)
	}
	first, err := LockDaemon(home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockDaemon(home); !errors.Is(err, ErrDaemonRunning) {
		t.Fatalf("a second daemon: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := WaitUnlocked(ctx, home); err == nil {
		t.Fatal("WaitUnlocked returned while the lock was held")
	}
	first.Close()
	if err := WaitUnlocked(context.Background(), home); err != nil {
		t.Fatalf("after the daemon let go: %v", err)
	}
	again, err := LockDaemon(home)
	if err != nil {
		t.Fatalf("the next daemon: %v", err)
	}
	again.Close()
}
