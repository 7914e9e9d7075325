package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/internal/testenv"
)

// Shared is one server for a test package, started by the first test that
// asks for it and stopped by Run when the package's tests end:
//
//	var pg pgtest.Shared
//
//	func TestMain(m *testing.M) { os.Exit(pg.Run(m)) }
//
//	func TestX(t *testing.T) { url := pg.URL(t); … }
type Shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Run runs the tests, then stops the server if one was started.
func (sh *Shared) Run(m *testing.M) int {
	code := m.Run()
	if sh.srv != nil {
		if err := sh.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Server is the package's server, started on first use. Without the
// binaries t skips (fails under LOUPE_TEST_REQUIRE), naming Install; a
// server that does not start fails t.
func (sh *Shared) Server(t testing.TB) *Server {
	t.Helper()
	sh.once.Do(func() { sh.srv, sh.err = Start(context.Background()) })
	switch {
	case errors.Is(sh.err, ErrMissing):
		testenv.Missing(t, "PostgreSQL", Install)
	case sh.err != nil:
		t.Fatal(sh.err)
	}
	return sh.srv
}

// URL is the URL of a new, empty schema of the package's server (see
// Server.NewSchema).
func (sh *Shared) URL(t testing.TB) string {
	t.Helper()
	u, err := sh.Server(t).NewSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Database is the URL of a new, empty database of the package's server.
func (sh *Shared) Database(t testing.TB) string {
	t.Helper()
	u, err := sh.Server(t).NewDatabase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return u
}
