package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/ops"
)

// maxUpload bounds the files of one upload together: they travel to the
// daemon in one request, which the local API bounds at 64 MiB (base64
// makes 48 MiB of files 64).
const maxUpload = 48 << 20

// readUploads reads the files the person named for an upload or a drop,
// together at most maxUpload bytes: the CLI reads them with the user's
// rights and sends them; the daemon only hands the page files it stored.
func readUploads(paths []string) ([]ops.UploadFile, error) {
	var out []ops.UploadFile
	total := int64(0)
	for _, f := range paths {
		b, err := readUpload(f, maxUpload-total, "one upload carries at most 48 MiB of files")
		if err != nil {
			return nil, err
		}
		total += int64(len(b))
		out = append(out, ops.UploadFile{Name: filepath.Base(f), Data: b})
	}
	return out, nil
}

// readUpload reads a file the person named for an upload (or a storage
// state, or a route's body), at most limit bytes, which bound says in
// their terms: only a regular file (the path may be a link to one: it is
// the person's own), never a device, a FIFO or a directory, which are
// refused before anything is read (/dev/zero would never end, a FIFO
// would block).
func readUpload(path string, limit int64, bound string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: name files, not devices, pipes or directories", path)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes: %s", path, st.Size(), bound)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if int64(len(b)) > limit { // it grew while read
		return nil, fmt.Errorf("%s grew while it was read: %s", path, bound)
	}
	return b, nil
}

// writeNew writes data to a new file at path (-o FILE) and returns the
// path written. It never overwrites and never writes through a link: an
// existing regular file keeps its place and the data goes to "name
// (1).ext", "name (2).ext", … (filesdir.CreateNew, as downloads and
// uploads are named); a symlink, a directory, a device or a FIFO at path
// is refused, as is a missing directory. Errors are FILE_ERROR.
func writeNew(path string, data []byte) (string, error) { return writeNewPerm(path, data, 0o644) }

// writeNewPerm is writeNew with the new file's permissions (0600 for a
// file that holds secrets: a storage state's cookies).
func writeNewPerm(path string, data []byte, perm os.FileMode) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fileErr(path, err)
	}
	if st, err := os.Lstat(abs); err == nil {
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return "", apitype.Errorf(apitype.FileError, "%s is a symbolic link: loupe does not write through links", path)
		case st.IsDir():
			return "", apitype.Errorf(apitype.FileError, "%s is a directory: name a file in it", path)
		case !st.Mode().IsRegular():
			return "", apitype.Errorf(apitype.FileError, "%s is not a regular file (a device or a pipe)", path)
		}
	}
	to, err := filesdir.CreateNew(filepath.Dir(abs), filepath.Base(abs), data, perm)
	if errors.Is(err, filesdir.ErrNoFreeName) {
		return "", apitype.Errorf(apitype.FileError, "%s and %d numbered names beside it exist already", path, filesdir.MaxRenames)
	}
	if err != nil {
		return "", fileErr(path, err)
	}
	return to, nil
}

// fileErr says what went wrong with a file in the caller's terms.
func fileErr(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return apitype.Errorf(apitype.FileError, "cannot write %s: its directory does not exist", path)
	case errors.Is(err, syscall.ENOSPC):
		return apitype.Errorf(apitype.FileError, "cannot write %s: no space left on the device", path)
	case errors.Is(err, fs.ErrPermission):
		return apitype.Errorf(apitype.FileError, "cannot write %s: permission denied", path)
	}
	return apitype.Errorf(apitype.FileError, "cannot write %s: %v", path, err)
}
