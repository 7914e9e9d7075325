package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/homedir"
)

// ledgerEnv names the operation ledger's PostgreSQL URL, shared by the
// daemons of a fleet (what --ledger sets); unset, the ledger is SQLite in
// LOUPE_HOME.
const ledgerEnv = "LOUPE_LEDGER"

// startTimeout bounds how long the CLI waits for a daemon it started to
// say it is ready (the daemon does not start a browser before the first
// call, so this is normally a few milliseconds).
const startTimeout = 15 * time.Second

// ensureDaemon returns a client of the running daemon, starting one if
// none answers.
func (c *cmd) ensureDaemon(ctx context.Context) (*client.Client, error) {
	cl := client.New(homedir.SocketPath(c.home), buildID())
	if _, err := cl.Probe(ctx); err == nil {
		return cl, nil
	} else if !errors.Is(err, client.ErrNoDaemon) {
		return nil, err
	}
	if err := c.startDaemon(ctx, os.Getenv(ledgerEnv)); err != nil {
		return nil, err
	}
	return cl, nil
}

// startDaemon runs `loupe daemon run` in its own session, detached from the
// terminal, and waits on a pipe for it to report ready: no polling of the
// socket. ledger (a PostgreSQL URL, or "") reaches the daemon in its
// environment, not its arguments: a URL's password would be in every
// user's ps for as long as the daemon runs, and /proc/PID/environ is its
// user's alone.
func (c *cmd) startDaemon(ctx context.Context, ledger string, env ...string) error {
	if err := homedir.Prepare(c.home); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(homedir.LogPath(c.home), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	p := exec.Command(exe, "daemon", "run")
	p.Env = append(append(os.Environ(), "LOUPE_HOME="+c.home, ledgerEnv+"="+ledger, "LOUPE_READY_FD=3"), env...)
	p.Stdout = logf
	p.Stderr = logf
	p.ExtraFiles = []*os.File{w}
	p.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := p.Start(); err != nil {
		w.Close()
		return fmt.Errorf("starting the daemon: %w", err)
	}
	w.Close()
	_ = p.Process.Release()

	_ = r.SetReadDeadline(time.Now().Add(startTimeout))
	line, err := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line == "ready":
		return nil
	case strings.HasPrefix(line, "error: "):
		return fmt.Errorf("the daemon did not start: %s", strings.TrimPrefix(line, "error: "))
	default:
		return fmt.Errorf("the daemon did not start (%v); see %s", err, homedir.LogPath(c.home))
	}
}

// daemonVerb is `loupe daemon start|stop|status|run [--ledger URL]`.
func (c *cmd) daemonVerb(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return c.usage(errors.New("daemon needs a command: start, stop, status or run"), daemonUsage)
	}
	sub, rest := args[0], args[1:]
	ledger, given := "", false
	var env []string // for the daemon start starts
	if sub == "start" || sub == "run" {
		var err error
		if ledger, given, rest, err = ledgerFlag(rest); err != nil {
			return c.usage(err, daemonUsage)
		}
	}
	if sub == "start" && len(rest) > 0 {
		n, err := maxSessions(rest)
		if err != nil {
			return c.usage(err, daemonUsage)
		}
		env, rest = []string{"LOUPE_MAX_SESSIONS=" + strconv.Itoa(n)}, nil
	}
	if len(rest) > 0 {
		return c.usage(fmt.Errorf("unexpected argument %q", rest[0]), daemonUsage)
	}
	if !given {
		ledger = os.Getenv(ledgerEnv)
	}
	if sub == "run" {
		// The daemon itself lives until it is stopped: no deadline.
		return c.daemonCmd(ctx, "run", ledger, given)
	}
	d := 30 * time.Second
	if c.timeout > 0 {
		d = c.timeout
	}
	ctx, cancel := c.deadline(ctx, d)
	defer cancel()
	return c.daemonCmd(ctx, sub, ledger, given, env...)
}

// maxSessions reads start's --max-sessions N (or --max-sessions=N).
func maxSessions(args []string) (int, error) {
	v, ok := strings.CutPrefix(args[0], "--max-sessions=")
	switch {
	case ok && len(args) == 1:
	case args[0] == "--max-sessions" && len(args) == 2:
		v = args[1]
	default:
		return 0, fmt.Errorf("daemon start takes --ledger URL and --max-sessions N, not %q", strings.Join(args, " "))
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 10000 {
		return 0, fmt.Errorf("--max-sessions %q: want 1 to 10000", v)
	}
	return n, nil
}

// ledgerFlag takes --ledger URL (or --ledger=URL) out of args. The URL
// is not shown in an error: it may hold a password.
func ledgerFlag(args []string) (url string, given bool, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--ledger":
			if i+1 == len(args) {
				return "", false, nil, errors.New("--ledger needs a postgres:// URL")
			}
			url, given = args[i+1], true
			i++
		case strings.HasPrefix(a, "--ledger="):
			url, given = strings.TrimPrefix(a, "--ledger="), true
		default:
			rest = append(rest, a)
		}
	}
	if given && !strings.HasPrefix(url, "postgres://") && !strings.HasPrefix(url, "postgresql://") {
		return "", false, nil, errors.New("--ledger takes a postgres:// or postgresql:// URL (without it the ledger is SQLite in LOUPE_HOME)")
	}
	return url, given, rest, nil
}

// daemonCmd runs `loupe daemon start|stop|status|run`; ledger is the
// PostgreSQL URL a daemon it starts or runs keeps its ledger in ("":
// SQLite in the home), given whether --ledger named it.
func (c *cmd) daemonCmd(ctx context.Context, sub, ledger string, given bool, env ...string) int {
	cl := client.New(homedir.SocketPath(c.home), buildID())
	switch sub {
	case "run":
		if c.sys.RunDaemon == nil {
			return c.fail(errors.New("this loupe binary has no daemon in it"))
		}
		var ready io.WriteCloser
		if os.Getenv("LOUPE_READY_FD") == "3" {
			ready = os.NewFile(3, "ready")
		}
		err := c.sys.RunDaemon(ctx, DaemonConfig{Home: c.home, Build: buildID(), Ledger: ledger}, ready)
		if errors.Is(err, homedir.ErrDaemonRunning) {
			fmt.Fprintln(c.stderr, "loupe: "+err.Error())
			return 0
		}
		if err != nil {
			fmt.Fprintln(c.stderr, "loupe daemon: "+err.Error())
			return 1
		}
		return 0
	case "start":
		if st, err := cl.Probe(ctx); err == nil {
			msg := fmt.Sprintf("daemon already running (pid %d)", st.PID)
			if given || len(env) > 0 {
				msg += "; it keeps the ledger and bound it started with: --ledger and --max-sessions apply to a daemon that starts (loupe daemon stop first)"
			}
			return c.print(st, msg)
		}
		if err := c.startDaemon(ctx, ledger, env...); err != nil {
			return c.fail(apitype.Wrap(apitype.DaemonUnavailable, err, "%v", err)) // as when a command starts it
		}
		st, err := cl.Status(ctx)
		if err != nil {
			return c.fail(err)
		}
		return c.print(st, fmt.Sprintf("daemon started (pid %d)", st.PID))
	case "status":
		st, err := cl.Status(ctx)
		if errors.Is(err, client.ErrNoDaemon) {
			if c.json {
				fmt.Fprintln(c.stdout, `{"running":false}`)
			} else {
				fmt.Fprintln(c.stdout, "daemon not running")
			}
			return 0
		}
		if err != nil {
			return c.fail(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "daemon running: pid %d, build %s, up %s, %.1f MB RSS, home %s", st.PID, st.Build, st.Uptime, float64(st.RSSBytes)/1e6, st.Home)
		if l := st.Ledger; l != nil {
			fmt.Fprintf(&b, "\n  ledger: %s %s, host %s", l.Backend, l.Where, l.Host)
		}
		for _, s := range st.Sessions {
			fmt.Fprintf(&b, "\n  session %s: %s, %d tabs, %s", s.Name, s.Browser, s.Tabs, s.Where())
			if s.PID != 0 {
				fmt.Fprintf(&b, ", browser pid %d", s.PID)
			}
		}
		return c.print(st, b.String())
	case "stop":
		st, err := cl.Status(ctx)
		if errors.Is(err, client.ErrNoDaemon) {
			return c.print(map[string]bool{"running": false}, "daemon not running")
		}
		if err != nil {
			return c.fail(err)
		}
		if err := cl.Shutdown(ctx); err != nil {
			return c.fail(err)
		}
		// The daemon holds its lock until it has stopped every browser;
		// taking the lock is the event that says it is done.
		if err := homedir.WaitUnlocked(ctx, c.home); err != nil {
			return c.fail(err)
		}
		return c.print(map[string]any{"stopped": true, "pid": st.PID}, fmt.Sprintf("daemon stopped (pid %d)", st.PID))
	}
	return c.usage(fmt.Errorf("unknown daemon command %q (want start, stop, status or run)", sub), daemonUsage)
}
