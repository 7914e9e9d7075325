// Package e2e runs the loupe binary as a user would: each test gets its
// own LOUPE_HOME, so its own daemon and browsers, and drives them through
// the CLI against fixture pages served on loopback.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/procid"
)

var loupeBin string

// raceBinary builds the loupe binary under test with -race, and only when
// LOUPE_E2E_RACE=1 (make test-long sets it). The daemon's code is already
// race-checked in-process by its packages' tests (executor, localapi,
// mcpserver and dashboard run it under -race), and a race-built binary
// tripled the cost of this package; LOUPE_E2E_RACE=1 keeps the full check.
var raceBinary = os.Getenv("LOUPE_E2E_RACE") == "1"

// defaultParallel is -test.parallel when the caller does not set it. Most
// of a test's time is spent waiting on its daemon and Chromium, so more
// tests than cores run at once; each has its own home, daemon and browser.
const defaultParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(defaultParallel))
	}
	dir, err := os.MkdirTemp("", "loupe-e2e-bin-")
	if err != nil {
		panic(err)
	}
	loupeBin = filepath.Join(dir, "loupe")
	args := []string{"build", "-o", loupeBin}
	if raceBinary {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../cmd/loupe")...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		println("building loupe:", err.Error())
		os.Exit(1)
	}
	code := pg.Run(m) // stops the PostgreSQL server, if a test started it
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one user's environment: a LOUPE_HOME of its own.
type env struct {
	t    *testing.T
	home string
	// extra is added to the environment of every loupe process started
	// here ("KEY=VALUE"): t.Setenv would keep the test from running in
	// parallel.
	extra []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	// A short path: unix socket paths are limited to 108 bytes.
	home, err := os.MkdirTemp("", "lp-")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, home: home}
	t.Cleanup(func() {
		// Stop this test's daemon, then make sure nothing is left.
		e.run("daemon", "stop")
		e.waitNoProcesses(15 * time.Second)
		os.RemoveAll(home)
	})
	return e
}

// environ is the environment of a loupe process of this env.
func (e *env) environ() []string {
	env := append(os.Environ(), "LOUPE_HOME="+e.home)
	if raceBinary {
		// A race-checked binary sleeps a second at exit by default.
		env = append(env, "GORACE=atexit_sleep_ms=0")
	}
	return append(env, e.extra...)
}

// command is `loupe args...` in this env, not started.
func (e *env) command(args ...string) *exec.Cmd {
	cmd := exec.Command(loupeBin, args...)
	cmd.Env = e.environ()
	return cmd
}

type result struct {
	code           int
	stdout, stderr string
}

func (e *env) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, loupeBin, args...)
	cmd.Env = e.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("running loupe %v: %v", args, err)
	}
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	// No condition a caller can cause is INTERNAL ("a bug in loupe"):
	// every error the e2e suites meet is checked for it.
	if strings.HasPrefix(r.stderr, "INTERNAL: ") || strings.Contains(r.stdout, `"code":"INTERNAL"`) {
		e.t.Errorf("loupe %s answered INTERNAL:\n%s%s", strings.Join(args, " "), r.stdout, r.stderr)
	}
	return r
}

// ok runs a command that must succeed and returns its stdout.
func (e *env) ok(args ...string) string {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("loupe %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// okJSON runs a command with --json and decodes its output.
func (e *env) okJSON(v any, args ...string) {
	e.t.Helper()
	out := e.ok(append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		e.t.Fatalf("loupe %v: output is not JSON: %v\n%s", args, err, out)
	}
}

// processes lists the pids of this environment's processes: the loupe
// processes run with its LOUPE_HOME (the daemon's command line, `loupe
// daemon run`, does not name it), the browser processes they started
// (the browser's profile, crash and cache directories are under the
// home), and every process below one of those (the headless shell's
// helpers name neither the profile nor the home). Matching this home
// exactly keeps out the processes of the tests that run beside this one.
func (e *env) processes() []int {
	under := []byte(e.home + "/")
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	ours := map[int]bool{}
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 0 {
			continue
		}
		st, err := procid.ReadStat(pid)
		if err != nil || st.Exited() {
			continue // gone, or a zombie: only its parent's wait is due
		}
		parent[pid] = st.Parent
		b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if bytes.Contains(b, under) || homeOf(pid, st.Start, b) == e.home {
			ours[pid] = true
		}
	}
	var pids []int
	for pid := range parent {
		for p, n := pid, 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if ours[p] {
				pids = append(pids, pid)
				break
			}
		}
	}
	slices.Sort(pids)
	return pids
}

// homes caches each process's LOUPE_HOME, by pid, start time and
// command line: a process's environment is set at its exec (which
// changes its command line) and read in /proc as it was then, and reading
// every process's environment on every poll of every test was most of
// this test binary's own CPU (145 polls in a run, each reading some 300
// environments under make test's load).
var homes = struct {
	sync.Mutex
	m map[procKey]string
}{m: map[procKey]string{}}

type procKey struct {
	pid     int
	start   uint64
	cmdline string
}

// homeOf is the LOUPE_HOME of a process ("" when it has none, or it is
// gone).
func homeOf(pid int, start uint64, cmdline []byte) string {
	k := procKey{pid, start, string(cmdline)}
	homes.Lock()
	h, ok := homes.m[k]
	homes.Unlock()
	if ok {
		return h
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "" // not cached: it may be there on the next poll
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("LOUPE_HOME=")); ok {
			h = string(v)
		}
	}
	homes.Lock()
	homes.m[k] = h
	homes.Unlock()
	return h
}

// browserProcesses is processes without loupe's own (the daemon, MCP
// servers, CLI commands).
func (e *env) browserProcesses() []int {
	var out []int
	for _, pid := range e.processes() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if exe, _, _ := bytes.Cut(b, []byte{0}); string(exe) != loupeBin {
			out = append(out, pid)
		}
	}
	return out
}

// waitNoProcesses waits until no process of this environment is left. Exit
// of processes that are not our children has no event to wait on, so this
// polls /proc every 50ms until the deadline.
func (e *env) waitNoProcesses(within time.Duration) []int {
	deadline := time.Now().Add(within)
	for {
		left := e.processes()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
