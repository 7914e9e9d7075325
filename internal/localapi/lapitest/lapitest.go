// Package lapitest runs the local API in the test's own process: a
// localapi.Server on a unix socket in a temporary directory, in front of
// an executor built from the test's executor.Config, reached with the
// same typed client the CLI uses. With fake operations (ops.NewRegistry
// of ops.Describe'd operations marked NoBrowser, with handlers.Func
// handlers) the whole
// path client → HTTP → localapi → executor pipeline runs without a
// browser, so its contracts (error envelopes, status codes, build and
// origin checks, per-client state) are tested in milliseconds.
//
// Modelled in spirit on tailscale's ipn/lapitest.
package lapitest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/localapi"
)

// Build is the build id the test server answers with; clients from
// Client send it too.
const Build = "lapitest"

// Server is a running local API. Its fields are read-only.
type Server struct {
	// Socket is the unix socket the API listens on.
	Socket string
	// X is the executor behind it.
	X *executor.Executor
	// Shutdowns counts POST /v0/shutdown requests (the handler's
	// shutdown callback; nothing stops).
	Shutdowns chan struct{}
}

// New starts the local API for cfg (cfg.Home defaults to a temporary
// directory) and stops it, and closes the executor's sessions, when the
// test ends.
func New(t testing.TB, cfg executor.Config) *Server {
	t.Helper()
	if cfg.Home == "" {
		cfg.Home = t.TempDir()
	}
	sock := socketPath(t)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("lapitest: listen: %v", err)
	}
	s := &Server{Socket: sock, X: executor.New(cfg), Shutdowns: make(chan struct{}, 16)}
	api := localapi.New(s.X, Build, cfg.Home, func() {
		select {
		case s.Shutdowns <- struct{}{}:
		default:
		}
	})
	hs := &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Errorf("lapitest: shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("lapitest: serve: %v", err)
		}
		if err := s.X.Close(ctx); err != nil {
			t.Errorf("lapitest: closing sessions: %v", err)
		}
	})
	return s
}

// Client returns a client of this server's build.
func (s *Server) Client() *client.Client { return client.New(s.Socket, Build) }

// ClientOfBuild returns a client that says it is of another build.
func (s *Server) ClientOfBuild(build string) *client.Client { return client.New(s.Socket, build) }

// HTTP returns a plain HTTP client whose every request goes to the
// socket, whatever its URL: for requests the typed client never makes
// (a foreign Host or Origin, a malformed body).
func (s *Server) HTTP() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", s.Socket)
		},
	}}
}

// socketPath is a socket path in the test's temporary directory, or in a
// shorter one when that would pass the 108-byte limit of unix socket
// paths (long test names make long directories).
func socketPath(t testing.TB) string {
	p := filepath.Join(t.TempDir(), "api.sock")
	if len(p) < 100 {
		return p
	}
	dir, err := os.MkdirTemp("", "lapi-")
	if err != nil {
		t.Fatalf("lapitest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "api.sock")
}
