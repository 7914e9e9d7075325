package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// TestWriteNew: -o FILE never overwrites (a numbered name beside it),
// never writes through a symlink, and refuses a directory, a device and
// a missing directory with FILE_ERROR, touching nothing.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "shot.png")
	for i, want := range []string{"shot.png", "shot (1).png", "shot (2).png"} {
		got, err := writeNew(p, []byte{byte('a' + i)})
		if err != nil || got != filepath.Join(dir, want) {
			t.Fatalf("write %d: %q %v, want %s", i, got, err, want)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "a" {
		t.Fatalf("the first file was overwritten: %q", b)
	}

	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	for _, c := range []struct{ path, want string }{
		{link, "symbolic link"},
		{dangling, "symbolic link"},
		{dir, "is a directory"},
		{"/dev/full", "not a regular file"},
		{filepath.Join(dir, "missing", "x.txt"), "directory does not exist"},
	} {
		_, err := writeNew(c.path, []byte("x"))
		if e, ok := apitype.As(err); !ok || e.Code != apitype.FileError || !strings.Contains(e.Message, c.want) {
			t.Errorf("writeNew(%s): %v, want FILE_ERROR with %q", c.path, err, c.want)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "keep" {
		t.Fatalf("written through a link: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Fatal("a dangling link's target was created")
	}
	if list, _ := os.ReadDir(dir); len(list) != 6 { // three shots, secret, two links
		t.Fatalf("files in the directory: %d", len(list))
	}
}

// TestReadUpload: only regular files are read, within the bound; a device
// or a FIFO is refused before anything is read (no hang, no 4 GB).
func TestReadUpload(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "cv.pdf")
	os.WriteFile(ok, []byte("%PDF"), 0o600)
	if b, err := readUpload(ok, maxUpload, "at most so much"); err != nil || string(b) != "%PDF" {
		t.Fatalf("a regular file: %q %v", b, err)
	}
	link := filepath.Join(dir, "link.pdf")
	os.Symlink(ok, link)
	if _, err := readUpload(link, maxUpload, "at most so much"); err != nil {
		t.Fatalf("the person's own link to a file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", dir} {
		if _, err := readUpload(p, maxUpload, "at most so much"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
	}
	// Opening a FIFO for reading blocks until a writer comes: open it
	// non-blocking the way readUpload must, with a deadline on the test.
	done := make(chan error, 1)
	go func() { _, err := readUpload(fifo, maxUpload, "at most so much"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO blocked the upload")
	}
	if _, err := readUpload(ok, 3, "at most so much"); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("over the bound: %v", err)
	}
}
