package ledger

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/pgtest"
)

// The child process of the recovery tests: it opens the ledger named by
// childTargetEnv (as the host its LOUPE_HOST says), reserves childIDEnv,
// reports "reserved GEN PID" on stdout and then waits for stdin to close
// (or to be killed).
const (
	childTargetEnv = "LOUPE_LEDGER_TEST_CHILD"
	childIDEnv     = "LOUPE_LEDGER_TEST_ID"
)

// pg is the package's PostgreSQL server, started by the first test that
// needs it.
var pg pgtest.Shared

func TestMain(m *testing.M) {
	if target := os.Getenv(childTargetEnv); target != "" {
		os.Exit(child(target, os.Getenv(childIDEnv)))
	}
	os.Exit(pg.Run(m))
}

// backend makes new, empty ledgers of one kind: a SQLite file, or a
// PostgreSQL schema of the test's own.
type backend struct {
	name   string
	target func(t testing.TB) string
}

var backends = []backend{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "ledger.db") }},
	{"postgres", func(t testing.TB) string { return pg.URL(t) }},
}

// eachBackend runs f as a parallel subtest on each backend.
func eachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			f(t, b)
		})
	}
}

func child(target, id string) int {
	ctx := context.Background()
	l, err := Open(ctx, target)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := l.Reserve(ctx, Entry{ID: id, Session: "child", Op: "click", Action: "click", Digest: "d"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("reserved %d %d\n", l.Generation(), os.Getpid())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// startChild runs child in a new process, with env added to its
// environment, and waits for its report.
func startChild(t *testing.T, target, id string, env ...string) (cmd *exec.Cmd, gen int64) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), childTargetEnv+"="+target, childIDEnv+"="+id), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	var s string
	select {
	case s = <-line:
	case <-time.After(60 * time.Second):
		t.Fatalf("child did not report its reservation in 60 s; stderr: %s", stderr.String())
	}
	var pid int
	if _, err := fmt.Sscanf(s, "reserved %d %d", &gen, &pid); err != nil || pid != cmd.Process.Pid {
		t.Fatalf("child reported %q (%v); stderr: %s", s, err, stderr.String())
	}
	return cmd, gen
}

func newLedger(t testing.TB, b backend) (*Ledger, string) {
	t.Helper()
	target := b.target(t)
	return openAt(t, target), target
}

func openAt(t testing.TB, target string) *Ledger {
	t.Helper()
	l, err := Open(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// rawExec runs a statement on the ledger's database beside the ledger,
// to stage what the API does not make: query is written with ? and
// SQLite's spelling, as the ledger's own are.
func rawExec(t *testing.T, target, query string, args ...any) {
	t.Helper()
	driver, name, d := "sqlite", dsn(target), sqliteDialect
	if IsPostgres(target) {
		driver, name, d = "pgx", target, pgDialect
	}
	db, err := sql.Open(driver, name)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(d.bind(query), args...); err != nil {
		t.Fatal(err)
	}
}
