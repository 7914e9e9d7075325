// Package filesdir is a session's files directory as clients see it:
// everything a client hands the page (uploads, previews) or gets from it
// (screenshots, downloads) lives there. Names a client gives resolve only
// to regular files inside it — never through a symlink, never outside, and
// a refusal never says what exists outside — and new files never
// overwrite one already there.
package filesdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// Dir is a files directory, by its path.
type Dir string

// File is one file a client sent, by name and content.
type File struct {
	Name string
	Data []byte
}

// Path resolves a client's file name inside the session's files
// directory, with no-follow semantics: absolute names, names that climb
// out, symlinks anywhere on the way and anything but a regular file are
// refused — and the refusal never says what exists outside the directory.
func (d Dir) Path(name string) (string, error) {
	dir := string(d)
	bad := func(why string) error {
		return apitype.Errorf(apitype.BadInput, "file %q: %s", name, why).
			Fix("name a file in the session's files directory (" + dir + "), e.g. report.pdf or uploads/report.pdf")
	}
	if name == "" || filepath.IsAbs(name) {
		return "", bad("want a name relative to the session's files directory")
	}
	clean := filepath.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", bad("is outside the session's files directory")
	}
	p := dir
	var fi fs.FileInfo
	for _, part := range append([]string{""}, strings.Split(clean, "/")...) {
		p = filepath.Join(p, part)
		var err error
		if fi, err = os.Lstat(p); err != nil {
			return "", bad("no such file in the session's files directory")
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", bad("is reached through a symlink; loupe follows none in the files directory")
		}
	}
	if !fi.Mode().IsRegular() {
		return "", bad("is not a regular file")
	}
	return p, nil
}

// SaveUploads stores the files a client sent with an upload in a new
// directory of their own under files/uploads, so the page sees each
// file's own name and nothing already there is overwritten.
func (d Dir) SaveUploads(sent []File) ([]string, error) {
	if len(sent) == 0 {
		return nil, nil
	}
	root, err := d.own("uploads")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(root, "up-")
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(sent))
	for i, u := range sent {
		if paths[i], err = saveFile(dir, u.Name, u.Data); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// Save writes a new file into the directory: name must be a plain file
// name.
// It never follows a symlink and never overwrites: a name already taken
// gets " (1)", " (2)", … before its extension. It returns the path.
func (d Dir) Save(name string, data []byte) (string, error) {
	dir, err := d.own()
	if err != nil {
		return "", err
	}
	return saveFile(dir, name, data)
}

// Adopt links a file the session made outside this directory (a
// download, in the session's downloads) into it, under its own name
// (numbered if taken, never overwriting), and returns the new path: a
// confined caller's files directory then holds it, to be read back from
// there by name. The file is hard-linked, not copied; across file
// systems it is copied.
func (d Dir) Adopt(src string) (string, error) {
	dir, err := d.own()
	if err != nil {
		return "", err
	}
	name := filepath.Base(src)
	p, err := firstFree(dir, name, func(p string) error { return os.Link(src, p) })
	if err == nil || errors.Is(err, ErrNoFreeName) {
		return p, err
	}
	data, rerr := os.ReadFile(src) // another file system: a copy
	if rerr != nil {
		return "", rerr
	}
	return saveFile(dir, name, data)
}

// Own makes the files directory if missing, checks that it is a
// directory of its own (not a symlink), and returns its path: for a
// writer that publishes into it itself (a recording).
func (d Dir) Own() (string, error) { return d.own() }

// own makes the files directory and the subdirectory sub below it (if
// missing, 0700) and checks that each is a directory of its own, not a
// symlink: a files directory, or its uploads, replaced by a link must not
// make loupe write elsewhere.
func (d Dir) own(sub ...string) (string, error) {
	p := string(d)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil { // the session's own directory
		return "", err
	}
	for _, part := range append([]string{""}, sub...) {
		p = filepath.Join(p, part)
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			return "", apitype.Errorf(apitype.FileError, "%s is not a directory of loupe's (a symlink or a file): loupe writes no file through it", p)
		}
	}
	return p, nil
}

func saveFile(dir, name string, data []byte) (string, error) {
	if name == "" || name != filepath.Base(name) || name[0] == '.' {
		return "", fmt.Errorf("filesdir: %q is not a plain file name", name)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("filesdir: %s is not a directory of loupe's", dir)
	}
	return CreateNew(dir, name, data, 0o600)
}

// ErrNoFreeName means CreateNew found name and every numbered name beside
// it (up to MaxRenames) taken.
var ErrNoFreeName = errors.New("no free name")

// MaxRenames bounds CreateNew's search for a free "name (N).ext".
const MaxRenames = 1000

// CreateNew writes data to a new file named name in dir (which must
// exist) and returns its path. It never overwrites and never follows a
// symlink: a name already taken (a file, or a link: never written
// through) gets " (1)", " (2)", … before its extension. Each file is
// created with O_EXCL|O_NOFOLLOW; a failed write removes what it began.
func CreateNew(dir, name string, data []byte, perm os.FileMode) (string, error) {
	return firstFree(dir, name, func(p string) error {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(p)
		}
		return err
	})
}

// firstFree creates name in dir with create, or the first of "name (1)",
// "name (2)", … (before the extension, up to MaxRenames) that create does
// not find taken (fs.ErrExist), and returns its path.
func firstFree(dir, name string, create func(path string) error) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i <= MaxRenames; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(dir, n)
		err := create(p)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return p, nil
	}
	return "", fmt.Errorf("filesdir: %s in %s: %w", name, dir, ErrNoFreeName)
}
