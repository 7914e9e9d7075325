// Package e2e runs the loupe binary as a user would: each test gets its
// own LOUPE_HOME, so its own daemon and browsers, and drives them through
// the CLI against fixture pages served on loopback.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var loupeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "loupe-e2e-bin-")
	if err != nil {
		panic(err)
	}
	loupeBin = filepath.Join(dir, "loupe")
	args := []string{"build", "-o", loupeBin}
	if raceBuild {
		// The daemon's concurrency is checked too.
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "../cmd/loupe")...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		println("building loupe:", err.Error())
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one user's environment: a LOUPE_HOME of its own.
type env struct {
	t    *testing.T
	home string
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

type result struct {
	code           int
	stdout, stderr string
}

func (e *env) run(args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, loupeBin, args...)
	cmd.Env = append(os.Environ(), "LOUPE_HOME="+e.home)
	if raceBuild {
		// A race-checked binary sleeps a second at exit by default.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("running loupe %v: %v", args, err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
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

// processes lists the pids of processes whose command line mentions this
// environment's home: the daemon and every browser process it started
// (their profile, crash and cache directories are all under it).
func (e *env) processes() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range entries {
		pid := 0
		for _, c := range d.Name() {
			if c < '0' || c > '9' {
				pid = -1
				break
			}
			pid = pid*10 + int(c-'0')
		}
		if pid <= 0 {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err != nil || !bytes.Contains(b, []byte(e.home)) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
				continue // a zombie has exited; only its parent's wait is due
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

func (e *env) browserProcesses() []int {
	var out []int
	for _, pid := range e.processes() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if !bytes.Contains(b, []byte("daemon\x00run")) {
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
