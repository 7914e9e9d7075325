package daemon

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/homedir"
)

func home(t *testing.T) string {
	t.Helper()
	// A short path: a unix socket's path is at most 107 bytes.
	dir, err := os.MkdirTemp("", "lp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h := filepath.Join(dir, "h")
	if err := homedir.Prepare(h); err != nil {
		t.Fatal(err)
	}
	return h
}

// hold takes the home's lock as another daemon would (flock is per open
// file, so this process's second open conflicts with it).
func hold(t *testing.T, h string) *os.File {
	t.Helper()
	f, err := homedir.LockDaemon(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// staleSocket leaves a socket file nothing listens on, as a killed daemon
// does.
func staleSocket(t *testing.T, h string) {
	t.Helper()
	ln, err := net.Listen("unix", homedir.SocketPath(h))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
}

func TestLockOrServedFreeLock(t *testing.T) {
	h := home(t)
	staleSocket(t, h)
	lock, err := lockOrServed(context.Background(), h, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lock.Close()
}

// Another daemon that holds the lock and serves: ErrDaemonRunning.
func TestLockOrServedOtherServes(t *testing.T) {
	h := home(t)
	hold(t, h)
	ln, err := net.Listen("unix", homedir.SocketPath(h))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := lockOrServed(context.Background(), h, 10*time.Second); !errors.Is(err, homedir.ErrDaemonRunning) {
		t.Fatalf("err = %v, want ErrDaemonRunning", err)
	}
}

// A holder that neither serves nor lets go (a daemon still ending, or
// hung) is no daemon that serves: an error naming it once the wait is up,
// never ErrDaemonRunning (which tells the CLI "ready").
func TestLockOrServedHolderSilent(t *testing.T) {
	h := home(t)
	hold(t, h)
	staleSocket(t, h)
	_, err := lockOrServed(context.Background(), h, 50*time.Millisecond)
	if err == nil || errors.Is(err, homedir.ErrDaemonRunning) {
		t.Fatalf("err = %v, want an error naming the holder", err)
	}
	if want := "process " + strconv.Itoa(os.Getpid()) + " holds the daemon lock"; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want it to say %q", err, want)
	}
}

// A killed daemon lets go of its lock a little after it looks gone: the
// next daemon takes the lock then, instead of reporting the dead one as
// serving.
func TestLockOrServedHolderEnds(t *testing.T) {
	h := home(t)
	f := hold(t, h)
	staleSocket(t, h)
	// The holder's end, a moment into the wait: the condition under test.
	time.AfterFunc(30*time.Millisecond, func() { f.Close() })
	lock, err := lockOrServed(context.Background(), h, 10*time.Second)
	if err != nil {
		t.Fatalf("err = %v, want the lock", err)
	}
	lock.Close()
}
