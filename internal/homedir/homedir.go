// Package homedir is the layout of LOUPE_HOME and the daemon's lock in
// it: where the daemon's socket, lock and log are, where the ledger, the
// approval policy and the kept tabs live, and where in-process MCP
// servers keep their sessions. The command line (which starts, reaches
// and stops the daemon) and the daemon's side (which serves there) both
// use it, so it needs nothing but the standard library.
package homedir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// SocketPath is where the daemon of a home listens.
func SocketPath(home string) string { return filepath.Join(home, "loupe.sock") }

// LockPath is the daemon's lock file: held for the daemon's whole life,
// released only after every browser has stopped.
func LockPath(home string) string { return filepath.Join(home, "daemon.lock") }

// LogPath is where a started daemon writes its log.
func LogPath(home string) string { return filepath.Join(home, "daemon.log") }

// LedgerPath is the operation ledger in a home. The daemon and in-process
// MCP servers share it; each is a generation of its own.
func LedgerPath(home string) string { return filepath.Join(home, "ledger.db") }

// PolicyPath is the approval policy's file in a home.
func PolicyPath(home string) string { return filepath.Join(home, "policy.json") }

// TabsPath is the file that keeps the daemon's sessions' tabs across
// restarts.
func TabsPath(home string) string { return filepath.Join(home, "tabs.json") }

// MCPHome is where in-process MCP servers (loupe mcp without --daemon)
// keep their sessions, under MCPHome/sessions/NAME: apart from the
// daemon's, so a session of the same name never shares a profile with the
// daemon's and neither touches the other's browser.
func MCPHome(home string) string { return filepath.Join(home, "mcp") }

// maxSocketPath is the longest unix socket path Linux binds (sun_path is
// 108 bytes with its terminating NUL).
const maxSocketPath = 107

// Prepare makes sure the home directory is fit to hold loupe's state:
// a missing one is created, readable only by its user; an existing one is
// used as it is — loupe never changes the mode of a directory it did not
// create — but refused when another user owns it or others may write to
// it (anyone could plant a symlink or a socket there), and when the
// daemon's socket path in it would be too long to bind.
func Prepare(home string) error {
	if n := len(SocketPath(home)); n > maxSocketPath {
		return fmt.Errorf("LOUPE_HOME %s is too long: the daemon's socket path in it would be %d bytes, and a unix socket path has at most %d; use a shorter LOUPE_HOME", home, n, maxSocketPath)
	}
	fi, err := os.Lstat(home)
	if errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(home, 0o700)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("LOUPE_HOME %s is not a directory (a symlink or a file); point it at a directory of your own", home)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("LOUPE_HOME %s belongs to another user (uid %d); use a directory of your own", home, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("LOUPE_HOME %s is writable by others (mode %s); use a directory of your own (loupe creates a missing one readable only by you)", home, fi.Mode().Perm())
	}
	return nil
}

// ErrDaemonRunning means another daemon already serves this home.
var ErrDaemonRunning = errors.New("a daemon is already running for this LOUPE_HOME")

// LockDaemon takes the home's daemon lock for the life of the process
// (closing the file releases it); a second daemon for the same home gets
// ErrDaemonRunning. The lock file names the process that holds it.
func LockDaemon(home string) (*os.File, error) {
	f, err := os.OpenFile(LockPath(home), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrDaemonRunning
		}
		return nil, err
	}
	_ = f.Truncate(0)
	_, _ = fmt.Fprintf(f, "%d\n", os.Getpid())
	return f, nil
}

// WaitUnlocked blocks until the daemon lock is free, i.e. the daemon has
// finished its shutdown: the daemon holds its lock until it has stopped
// every browser, so taking the lock is the event that says it is done.
// flock blocks in the kernel; ctx bounds it.
func WaitUnlocked(ctx context.Context, home string) error {
	f, err := os.OpenFile(LockPath(home), os.O_RDWR, 0o600)
	if err != nil {
		return nil // no lock file: nothing is running
	}
	// The waiting goroutine owns the file: on a timeout it waits on, and
	// closes it once the lock comes free (or the process ends).
	fd := int(f.Fd())
	done := make(chan error, 1)
	go func() {
		err := syscall.Flock(fd, syscall.LOCK_EX)
		if err == nil {
			_ = syscall.Flock(fd, syscall.LOCK_UN)
		}
		f.Close()
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("the daemon did not stop in time: %w", ctx.Err())
	}
}
