// Package pgtest runs a throwaway PostgreSQL server for tests: a cluster
// made by initdb in a temporary directory, served on a free loopback port
// by the postgres binaries of Debian's postgresql package
// (/usr/lib/postgresql/VERSION/bin; LOUPE_TEST_PG_BIN names another
// directory), and stopped and removed when the tests end. When the tests
// run as root the server runs as the postgres user, as PostgreSQL refuses
// to run as root.
//
// A test package shares one server (Shared, started on first use) and
// gives each test a namespace of its own (Shared.URL): a schema in one
// shared database, which the URL's search_path names. A schema is made
// in a millisecond or two; a database takes 0.1 to 1 s (PostgreSQL 15
// writes the whole template to its WAL), and starting a server seconds.
// A test that needs a database of its own (an empty one, to migrate) asks
// for one (Server.NewDatabase).
//
// Outside `make test` a machine without the binaries skips the tests that
// need them, naming the command that installs them
// (scripts/ensure-postgres.sh); under make test (LOUPE_TEST_REQUIRE) that
// is a failure.
package pgtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// BinEnv names a directory holding initdb and postgres, to use instead
// of Debian's.
const BinEnv = "LOUPE_TEST_PG_BIN"

// Install is the command that provides the binaries.
const Install = "`scripts/ensure-postgres.sh` (Debian's postgresql package; make test runs it)"

// ErrMissing says the PostgreSQL binaries are not installed.
var ErrMissing = errors.New("pgtest: no PostgreSQL server binaries (initdb, postgres)")

// startTimeout bounds initdb and the server's start; stopTimeout its
// fast shutdown, after which it is killed.
const (
	startTimeout = 60 * time.Second
	stopTimeout  = 30 * time.Second
)

// Server is a running throwaway PostgreSQL server.
type Server struct {
	dir      string // owns the cluster (data), its socket and the password file
	port     int
	user     string
	password string
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the server process has exited
	log      *tail
	admin    *sql.DB // on the postgres database, for CREATE DATABASE
	shared   *sql.DB // on sharedDB, for CREATE SCHEMA
	next     atomic.Int64
}

// Bin is the directory of the PostgreSQL binaries: BinEnv, else the
// newest version under /usr/lib/postgresql. Not /usr/local/bin or PATH:
// Debian keeps initdb and postgres off PATH, and a pg_ctl found there
// may be a wrapper of another kind.
func Bin() (string, error) {
	hasServer := func(d string) bool {
		return isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres"))
	}
	if d := os.Getenv(BinEnv); d != "" {
		if !hasServer(d) {
			return "", fmt.Errorf("%w: %s=%s has no initdb and postgres", ErrMissing, BinEnv, d)
		}
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		return n
	}
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if hasServer(d) {
			return d, nil
		}
	}
	return "", ErrMissing
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Start makes a cluster in a new temporary directory and serves it on a
// free loopback port. The superuser has a random password, so the URLs
// it hands out carry one, as a real deployment's do.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loupe-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, user: "loupe_test", password: randomHex(16)}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := s.initdb(ctx, bin, cred); err != nil {
		return nil, err
	}
	// A free port can be taken between our probe and the server's bind;
	// then the server exits at once, and another port is tried.
	for attempt := 0; ; attempt++ {
		if s.port, err = freePort(); err != nil {
			return nil, err
		}
		err = s.serve(ctx, bin, cred)
		if err == nil || attempt == 2 || !strings.Contains(s.log.String(), "could not bind") {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if s.admin, err = sql.Open("pgx", s.URL("postgres")); err == nil {
		_, err = s.admin.ExecContext(ctx, "CREATE DATABASE "+sharedDB)
	}
	if err == nil {
		s.shared, err = sql.Open("pgx", s.URL(sharedDB))
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("pgtest: preparing the server: %w", err), s.Stop())
	}
	ok = true
	return s, nil
}

// runAs is the postgres user's credential when this process runs as
// root (nil otherwise: the server runs as this user).
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("pgtest: running as root, and PostgreSQL refuses to: no postgres user to run it as (%w); %s creates one", err, Install)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgtest: the postgres user: %w", err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) initdb(ctx context.Context, bin string, cred *syscall.Credential) error {
	pwfile := filepath.Join(s.dir, "password")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		return err
	}
	if cred != nil {
		if err := os.Chown(pwfile, int(cred.Uid), int(cred.Gid)); err != nil {
			return err
		}
	}
	// --no-sync: a throwaway cluster need not be on disk before it is
	// used. The server itself runs with fsync on, as a real one does, so
	// that commits (and the ledger's benchmark) cost what they cost.
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", filepath.Join(s.dir, "data"),
		"-U", s.user, "--pwfile", pwfile, "--auth-local=trust", "--auth-host=scram-sha-256",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.Dir = s.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	return nil
}

// serve starts the server and waits for it to say it is ready: it logs
// "database system is ready to accept connections" once it accepts them
// (lc_messages=C keeps the line in English), and exits at once on a
// failure, whose log the error holds.
func (s *Server) serve(ctx context.Context, bin string, cred *syscall.Credential) error {
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
		"-k", s.dir, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "lc_messages=C", "-c", "logging_collector=off",
		"-c", "max_connections=100", "-c", "shared_buffers=32MB")
	cmd.Dir = s.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	// SIGQUIT (immediate shutdown) should this process die without
	// stopping it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: starting postgres: %w", err)
	}
	s.cmd, s.exited, s.log = cmd, make(chan struct{}), &tail{}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			s.log.add(sc.Text())
			if strings.Contains(sc.Text(), "database system is ready to accept connections") {
				once.Do(func() { close(ready) })
			}
		}
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case <-ready:
		return nil
	case <-s.exited:
		return fmt.Errorf("pgtest: postgres exited (%v):\n%s", cmd.ProcessState, s.log)
	case <-ctx.Done():
		s.stop()
		return fmt.Errorf("pgtest: postgres not ready (%w):\n%s", ctx.Err(), s.log)
	}
}

// freePort is a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// URL is the address of database db on the server, with the superuser's
// password.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", s.user, s.password, s.port, db)
}

// Password is the superuser's password, which every URL carries: a test
// checks that nothing shows it.
func (s *Server) Password() string { return s.password }

// sharedDB is the database that holds the tests' schemas.
const sharedDB = "tests"

// NewSchema creates an empty schema in the shared database and returns
// the database's URL with the schema as its search_path: what the URL's
// user creates goes there.
func (s *Server) NewSchema(ctx context.Context) (string, error) {
	name := "s" + strconv.FormatInt(s.next.Add(1), 10)
	if _, err := s.shared.ExecContext(ctx, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("pgtest: creating a schema: %w", err)
	}
	return s.URL(sharedDB) + "&search_path=" + name, nil
}

// NewDatabase creates an empty database and returns its URL.
func (s *Server) NewDatabase(ctx context.Context) (string, error) {
	name := "d" + strconv.FormatInt(s.next.Add(1), 10)
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("pgtest: creating a database: %w", err)
	}
	return s.URL(name), nil
}

// Stop shuts the server down (fast shutdown: SIGINT to its process; after
// stopTimeout, SIGKILL) and removes its directory.
func (s *Server) Stop() error {
	for _, db := range []*sql.DB{s.admin, s.shared} {
		if db != nil {
			db.Close()
		}
	}
	err := s.stop()
	return errors.Join(err, os.RemoveAll(s.dir))
}

func (s *Server) stop() error {
	if s.cmd == nil {
		return nil
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("pgtest: stopping postgres: %w", err)
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("pgtest: postgres did not stop in %s, killed:\n%s", stopTimeout, s.log)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tail keeps the last lines of the server's log, for errors.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > 50 {
		t.lines = t.lines[1:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
