package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Byte-identical binaries are one build, wherever they are and whenever
// they were written; one changed byte is another build.
func TestFileBuildIDHashesContent(t *testing.T) {
	dir := t.TempDir()
	content := make([]byte, 3<<20) // more than one read buffer
	for i := range content {
		content[i] = byte(i * 7)
	}
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, content, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(b, old, old); err != nil {
		t.Fatal(err)
	}
	content[len(content)-1]++
	if err := os.WriteFile(c, content, 0o755); err != nil {
		t.Fatal(err)
	}
	ida, err := fileBuildID(a)
	if err != nil {
		t.Fatal(err)
	}
	idb, _ := fileBuildID(b)
	idc, _ := fileBuildID(c)
	if ida != idb {
		t.Errorf("identical files, other mtimes: build %s and %s", ida, idb)
	}
	if ida == idc {
		t.Errorf("files one byte apart have the same build %s", ida)
	}
	if len(ida) != 12 {
		t.Errorf("build id %q: want 12 hex digits", ida)
	}
	if _, err := fileBuildID(filepath.Join(dir, "missing")); err == nil {
		t.Error("no error for a missing file")
	}
}

func TestBuildIDIsTheExecutablesHash(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	want, err := fileBuildID(exe)
	if err != nil {
		t.Fatal(err)
	}
	if got := buildID(); got != want {
		t.Errorf("buildID() = %s, want the hash of %s, %s", got, exe, want)
	}
}

// BenchmarkFileBuildID20MB measures what hashing costs a command that talks
// to the daemon, for a binary of 20 MB (loupe is about 16 MB).
func BenchmarkFileBuildID20MB(b *testing.B) {
	p := filepath.Join(b.TempDir(), "loupe")
	content := make([]byte, 20<<20)
	for i := range content {
		content[i] = byte(i * 31)
	}
	if err := os.WriteFile(p, content, 0o755); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := fileBuildID(p); err != nil {
			b.Fatal(err)
		}
	}
}
