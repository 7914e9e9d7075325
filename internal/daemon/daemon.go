// Package daemon is loupe's composition root: it owns LOUPE_HOME, reaps
// browsers a killed predecessor left behind, wires the executor to the local
// API on a unix socket, and shuts everything down in order.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/localapi"
	"github.com/loupe-dev/loupe/internal/system"
)

// Config configures the daemon.
type Config struct {
	Home     string // LOUPE_HOME
	Build    string // reported to clients
	Executor executor.Config
}

// SocketPath is where the daemon of a home listens.
func SocketPath(home string) string { return filepath.Join(home, "loupe.sock") }

// LockPath is the daemon's lock file: held for the daemon's whole life,
// released only after every browser has stopped.
func LockPath(home string) string { return filepath.Join(home, "daemon.lock") }

// TabsPath keeps the sessions' tabs across daemon restarts.
func TabsPath(home string) string { return system.TabsPath(home) }

// LogPath is where a started daemon writes its log.
func LogPath(home string) string { return filepath.Join(home, "daemon.log") }

// ErrRunning means another daemon already serves this home.
var ErrRunning = errors.New("a daemon is already running for this LOUPE_HOME")

// maxSocketPath is the longest unix socket path Linux binds (sun_path is
// 108 bytes with its terminating NUL).
const maxSocketPath = 107

// PrepareHome makes sure the home directory is fit to hold loupe's state:
// a missing one is created, readable only by its user; an existing one is
// used as it is — loupe never changes the mode of a directory it did not
// create — but refused when another user owns it or others may write to
// it (anyone could plant a symlink or a socket there), and when the
// daemon's socket path in it would be too long to bind.
func PrepareHome(home string) error {
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

// Run serves until ctx ends, SIGTERM or SIGINT arrives, or a client asks the
// daemon to stop. ready, if not nil, receives "ready\n" once the socket
// accepts connections (or "error: …\n") and is then closed: the CLI that
// started the daemon waits on it instead of polling.
func Run(ctx context.Context, cfg Config, ready io.WriteCloser) (err error) {
	signalReady := func(msg string) {
		if ready != nil {
			_, _ = io.WriteString(ready, msg+"\n")
			_ = ready.Close()
			ready = nil
		}
	}
	defer func() {
		if err != nil && !errors.Is(err, ErrRunning) {
			signalReady("error: " + err.Error())
		}
	}()
	if err := PrepareHome(cfg.Home); err != nil {
		return err
	}
	lock, err := lockHome(cfg.Home)
	if err != nil {
		signalReady("ready") // the other daemon serves
		return err
	}
	defer lock.Close()

	// A daemon or MCP server that was killed may have left browsers behind.
	ReapLeftovers(cfg.Home)

	sock := SocketPath(cfg.Home)
	// We hold the lock, so a socket file here belongs to a dead daemon.
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", sock, err)
	}
	defer os.Remove(sock)
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return err
	}

	// The daemon's standard error is its log file (LogPath).
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dash := &dashboards{build: cfg.Build}
	cfg.Executor.Dashboard = dash
	brk := &brokers{build: cfg.Build, home: cfg.Home}
	cfg.Executor.Broker = brk
	sys, err := system.Open(ctx, system.Config{Home: cfg.Home, KeepTabs: true, Executor: cfg.Executor, Log: logger})
	if err != nil {
		ln.Close()
		return err
	}
	x := sys.X
	dash.x = x
	brk.x = x
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	api := localapi.New(x, cfg.Build, cfg.Home, cancel)
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(api.Close)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	signalReady("ready")

	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	// Ordered shutdown: stop taking calls (in-flight ones get a moment to
	// finish), then end every session and its browser.
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	dash.Close()
	brk.Close()
	cctx, ccancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer ccancel()
	if cerr := sys.Close(cctx); cerr != nil && err == nil {
		err = cerr
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// MCPHome is where in-process MCP servers (loupe mcp without --daemon)
// keep their sessions, under MCPHome/sessions/NAME: apart from the
// daemon's, so a session of the same name never shares a profile with the
// daemon's and neither touches the other's browser.
func MCPHome(home string) string { return filepath.Join(home, "mcp") }

// ReapLeftovers ends the browsers that a daemon or an in-process MCP
// server of this home launched and did not stop because it died. Those
// of processes that still run are left alone.
func ReapLeftovers(home string) {
	chromium.Reap(filepath.Join(home, "sessions"))
	chromium.Reap(filepath.Join(MCPHome(home), "sessions"))
}

// LedgerPath is the operation ledger in a home (system.LedgerPath).
func LedgerPath(home string) string { return system.LedgerPath(home) }

// PolicyPath is the approval policy's file in a home (system.PolicyPath).
func PolicyPath(home string) string { return system.PolicyPath(home) }

// lockHome takes the home's daemon lock for the life of the process; a
// second daemon for the same home gets ErrRunning.
func lockHome(home string) (*os.File, error) {
	f, err := os.OpenFile(LockPath(home), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, err
	}
	_ = f.Truncate(0)
	_, _ = fmt.Fprintf(f, "%d\n", os.Getpid())
	return f, nil
}
