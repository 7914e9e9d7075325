package buildid

import (
	"encoding/binary"
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

// The executable's build is the Go linker's build id: two copies of one
// binary share it, a binary built from other source has another, and the
// note parser takes nothing but a well-formed "Go" note.
func TestBuildIDIsTheLinkersBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	want, err := goBuildID(exe)
	if err != nil {
		t.Fatalf("the test binary (%s) has no Go build id note: %v", exe, err)
	}
	if got := Of(""); got != want || len(got) != 12 {
		t.Errorf("Of = %s, want the linker's build id of %s, %s", got, exe, want)
	}
	content, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.WriteFile(cp, content, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := goBuildID(cp); err != nil || got != want {
		t.Errorf("a copy of the binary: %s %v, want %s", got, err, want)
	}
	// Another build: the note names another content id.
	le := binary.LittleEndian
	note := func(name string, typ uint32, desc string) []byte {
		b := le.AppendUint32(nil, uint32(len(name)))
		b = le.AppendUint32(b, uint32(len(desc)))
		b = le.AppendUint32(b, typ)
		b = append(b, name...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return append(b, desc...)
	}
	a, err := noteBuildID(note("Go\x00\x00", 4, "act/content-a"), le)
	if err != nil || string(a) != "act/content-a" {
		t.Fatalf("a well-formed note: %q %v", a, err)
	}
	for _, bad := range [][]byte{
		nil,
		note("GNU\x00", 4, "x"),
		note("Go\x00\x00", 3, "x"),
		note("Go\x00\x00", 4, ""),
		note("Go\x00\x00", 4, "act/content")[:20], // descriptor cut short
	} {
		if id, err := noteBuildID(bad, le); err == nil {
			t.Errorf("note %q: id %q, want an error", bad, id)
		}
	}
	// A file that is not ELF falls back to hashing (see Of).
	if _, err := goBuildID(cp + "-missing"); err == nil {
		t.Error("no error for a missing file")
	}
	notELF := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755)
	if _, err := goBuildID(notELF); err == nil {
		t.Error("no error for a file that is not ELF")
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
