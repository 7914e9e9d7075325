// Package daemon is loupe's composition root: it owns LOUPE_HOME, reaps
// browsers a killed predecessor left behind, wires the executor to the local
// API on a unix socket, and shuts everything down in order.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/localapi"
	"github.com/loupe-dev/loupe/internal/system"
)

// Config configures the daemon.
type Config struct {
	Home     string // LOUPE_HOME
	Ledger   string // the ledger's PostgreSQL URL; "": SQLite in Home (see system.Config)
	Build    string // reported to clients
	Executor executor.Config
}

// Run serves until ctx ends, SIGTERM or SIGINT arrives, or a client asks the
// daemon to stop. ready, if not nil, receives "ready\n" once the socket
// accepts connections (or "error: …\n") and is then closed: the CLI that
// started the daemon waits on it instead of polling. When another daemon
// serves the home already, Run returns homedir.ErrDaemonRunning (and
// ready is told "ready": that daemon serves); one that holds the lock
// without serving yet is waited on (see lockOrServed).
func Run(ctx context.Context, cfg Config, ready io.WriteCloser) (err error) {
	signalReady := func(msg string) {
		if ready != nil {
			_, _ = io.WriteString(ready, msg+"\n")
			_ = ready.Close()
			ready = nil
		}
	}
	defer func() {
		if err != nil && !errors.Is(err, homedir.ErrDaemonRunning) {
			// One line: the CLI reads one (a driver's error may span several).
			signalReady("error: " + strings.Join(strings.Fields(err.Error()), " "))
		}
	}()
	if err := homedir.Prepare(cfg.Home); err != nil {
		return err
	}
	lock, err := lockOrServed(ctx, cfg.Home, lockWait)
	if errors.Is(err, homedir.ErrDaemonRunning) {
		signalReady("ready") // the other daemon serves
		return err
	}
	if err != nil {
		return err
	}
	defer lock.Close()

	// The daemon's standard error is its log file (LogPath).
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	// A daemon or MCP server that was killed may have left browsers
	// behind, and WebDriver sessions on a Grid.
	system.ReapLeftovers(ctx, cfg.Home, logger)

	sock := homedir.SocketPath(cfg.Home)
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

	dash := &dashboards{build: cfg.Build}
	cfg.Executor.Dashboard = dash
	brk := &brokers{build: cfg.Build, home: cfg.Home}
	cfg.Executor.Broker = brk
	sys, err := system.Open(ctx, system.Config{Home: cfg.Home, Ledger: cfg.Ledger, KeepTabs: true, Executor: cfg.Executor, Log: logger})
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
