// Package buildid names a build of the running executable, so that a CLI
// notices a daemon started from another binary.
package buildid

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
)

// Of names this build: the Go linker's build id where the executable has
// one (an ELF note of a few dozen bytes: its last part is a hash the
// linker takes of the binary's content, so byte-identical binaries share
// it wherever they were copied to), and otherwise a hash of the whole
// file; fallback when neither can be read. Reading the note costs a few
// system calls; hashing the 25 MB binary cost ~20 ms of CPU on every
// command that talks to the daemon, which scripts and agents run by the
// thousand. Callers compute it once, and only where they need it (help
// and usage errors never pay).
func Of(fallback string) string {
	exe, err := os.Executable()
	if err != nil {
		return fallback
	}
	if id, err := goBuildID(exe); err == nil {
		return id
	}
	id, err := fileBuildID(exe)
	if err != nil {
		return fallback
	}
	return id
}

// errNoBuildID is an executable without a Go build id note.
var errNoBuildID = errors.New("no Go build id note")

// goBuildID is 12 hex digits of the SHA-256 of the Go build id recorded in
// an ELF executable's .note.go.buildid section ("action/content" ids; the
// linker computes the content id over the output binary).
func goBuildID(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil || sec.Size > 4096 {
		return "", errNoBuildID
	}
	data, err := sec.Data()
	if err != nil {
		return "", err
	}
	id, err := noteBuildID(data, f.ByteOrder)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(id)
	return hex.EncodeToString(sum[:6]), nil
}

// noteBuildID returns the descriptor of an ELF note named "Go" of type 4
// (the Go build id): namesz, descsz and type, then the name and the
// descriptor, each padded to 4 bytes.
func noteBuildID(data []byte, order binary.ByteOrder) ([]byte, error) {
	if len(data) < 16 {
		return nil, errNoBuildID
	}
	namesz, descsz, typ := order.Uint32(data), order.Uint32(data[4:]), order.Uint32(data[8:])
	name := 12 + (int(namesz)+3)&^3
	if namesz != 4 || typ != 4 || !bytes.Equal(data[12:16], []byte("Go\x00\x00")) || descsz == 0 || int64(name)+int64(descsz) > int64(len(data)) {
		return nil, errNoBuildID
	}
	return data[name : name+int(descsz)], nil
}

// fileBuildID is the first 12 hex digits of the SHA-256 of the file's
// content, read as a stream: the build id of an executable without a Go
// build id note.
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
