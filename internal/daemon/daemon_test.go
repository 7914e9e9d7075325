package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareHome: a missing home is made readable only by its user; an
// existing one keeps its mode (loupe never changes a directory it did not
// make) unless it is unsafe, which is refused with a clear error.
func TestPrepareHome(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "fresh")
	if err := PrepareHome(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Errorf("a new home is %s", fi.Mode().Perm())
	}

	mine := filepath.Join(root, "mine")
	os.Mkdir(mine, 0o755)
	os.Chmod(mine, 0o755)
	if err := PrepareHome(mine); err != nil {
		t.Errorf("a home of one's own, 0755: %v", err)
	}
	if fi, _ := os.Stat(mine); fi.Mode().Perm() != 0o755 {
		t.Errorf("its mode was changed to %s", fi.Mode().Perm())
	}

	shared := filepath.Join(root, "shared")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, os.ModeSticky|0o777)
	if err := PrepareHome(shared); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a shared 1777 home: %v", err)
	}
	if fi, _ := os.Stat(shared); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("the shared home's mode was changed to %s", fi.Mode())
	}

	link := filepath.Join(root, "link")
	os.Symlink(mine, link)
	if err := PrepareHome(link); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlink home: %v", err)
	}

	long := filepath.Join(root, strings.Repeat("x", 120))
	if err := PrepareHome(long); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("a home too long for the socket: %v", err)
	}
	if _, err := os.Stat(long); err == nil {
		t.Error("the too-long home was created anyway")
	}
}
