// Package cli is loupe's command line: a thin client of the daemon. It
// parses argv into an operation's input (derived from the operation
// registry), starts the daemon on first use, calls it over the local socket
// and prints the result tersely, or as JSON with --json.
//
// Exit codes: 0 success; 1 a runtime error (printed as "CODE: message
// (hint)", or {"error":{…}} with --json); 2 a usage error, which never
// reaches the daemon or a browser.
package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Version is loupe's release version.
const Version = "0.1.0-dev"

type cmd struct {
	stdout, stderr io.Writer
	home           string
	build          string
	session        string
	sessionSet     bool
	json           bool
	timeout        time.Duration
	reg            *ops.Registry
}

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	c := &cmd{stdout: stdout, stderr: stderr, reg: ops.New(), session: "default", build: buildID()}
	c.home = os.Getenv("LOUPE_HOME")
	if c.home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintln(stderr, "loupe: set LOUPE_HOME (no home directory):", err)
			return 1
		}
		c.home = filepath.Join(h, ".loupe")
	}
	if abs, err := filepath.Abs(c.home); err == nil {
		c.home = abs
	}
	return c.run(context.Background(), args)
}

func (c *cmd) run(ctx context.Context, args []string) int {
	verb, rest, helpWanted, err := c.globals(args)
	if err != nil {
		return c.usage(err, "")
	}
	switch verb[0] {
	case "", "help":
		if len(verb) > 1 || (verb[0] == "help" && len(rest) > 0) {
			name := strings.Join(append(verb[1:], rest...), " ")
			if op, ok := c.reg.Lookup(name); ok {
				fmt.Fprint(c.stdout, help(op))
				return 0
			}
		}
		fmt.Fprint(c.stdout, c.overview())
		if verb[0] == "" && !helpWanted {
			return 2
		}
		return 0
	case "version":
		fmt.Fprintf(c.stdout, "loupe %s (build %s)\n", Version, c.build)
		return 0
	case "mcp":
		if helpWanted {
			fmt.Fprintln(c.stdout, mcpHelp)
			return 0
		}
		return c.mcp(ctx, rest)
	case "daemon":
		if helpWanted || len(verb) < 2 {
			fmt.Fprintln(c.stdout, "usage: loupe daemon start|stop|status\n\nStart, stop or inspect the background daemon that owns the browsers.\nThe first command starts it on its own; `daemon stop` ends every session.")
			if helpWanted {
				return 0
			}
			return 2
		}
		if len(rest) > 0 {
			return c.usage(fmt.Errorf("unexpected argument %q", rest[0]), "usage: loupe daemon start|stop|status")
		}
		if verb[1] == "run" {
			// The daemon itself lives until it is stopped: no deadline.
			return c.daemonCmd(ctx, verb[1])
		}
		ctx, cancel := c.deadline(ctx, 30*time.Second)
		defer cancel()
		return c.daemonCmd(ctx, verb[1])
	}
	name := strings.Join(verb, " ")
	op, ok := c.reg.Lookup(name)
	if !ok {
		return c.usage(fmt.Errorf("unknown command %q", name), "run `loupe help` for the list of commands")
	}
	if helpWanted {
		fmt.Fprint(c.stdout, help(op))
		return 0
	}
	in, err := parseArgs(op, rest)
	if err == nil {
		if v, ok := in.(ops.Validator); ok {
			err = v.Validate()
		}
	}
	if err != nil {
		if e, ok := apitype.As(err); ok {
			e.Op = op.Name
		}
		return c.usage(err, "usage: loupe "+usageLine(op))
	}
	return c.call(ctx, op, in)
}

// globals splits argv into the verb (one or two words), the verb's own
// arguments, and the global flags, which may appear anywhere.
func (c *cmd) globals(args []string) (verb, rest []string, helpWanted bool, err error) {
	var toks []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			toks = append(toks, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch name {
		case "--json":
			c.json = true
			continue
		case "-h", "--help":
			helpWanted = true
			continue
		case "--session", "--timeout":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, false, fmt.Errorf("%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if name == "--session" {
				if !executor.ValidSession(val) {
					return nil, nil, false, fmt.Errorf("--session %q: use letters, digits, '.', '_' or '-'", val)
				}
				c.session, c.sessionSet = val, true
				continue
			}
			// `wait` has its own --timeout: hand it over.
			if len(toks) > 0 && toks[0] == "wait" {
				toks = append(toks, "--timeout="+val)
				continue
			}
			d, perr := time.ParseDuration(val)
			if perr != nil || d <= 0 {
				return nil, nil, false, fmt.Errorf("--timeout %q: want a duration such as 10s", val)
			}
			c.timeout = d
			continue
		}
		toks = append(toks, a)
	}
	if len(toks) == 0 {
		return []string{""}, nil, helpWanted, nil
	}
	verb = []string{toks[0]}
	rest = toks[1:]
	if (toks[0] == "tab" || toks[0] == "daemon") && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		verb = append(verb, rest[0])
		rest = rest[1:]
	}
	if toks[0] == "tab" && len(verb) == 1 {
		return nil, nil, false, errors.New("tab needs a command: new, close or activate")
	}
	return verb, rest, helpWanted, nil
}

func (c *cmd) deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// call runs an operation through the daemon and prints its result.
func (c *cmd) call(ctx context.Context, op *ops.Op, in any) int {
	wait := op.Timeout
	if c.timeout > 0 {
		wait = c.timeout
	}
	// The daemon enforces the operation's deadline; the client allows for
	// starting the daemon and a browser on top of it.
	ctx, cancel := c.deadline(ctx, wait+60*time.Second)
	defer cancel()
	var outFile string
	switch v := in.(type) {
	case *ops.ScreenshotIn:
		if v.Out != "" {
			outFile, v.Data = v.Out, true
		}
	case *ops.UploadIn:
		// The CLI reads the user's files with the user's rights and
		// sends them: the daemon only hands the page files it stored.
		for _, f := range v.Files {
			b, err := os.ReadFile(f)
			if err != nil {
				return c.usage(fmt.Errorf("reading %s: %v", f, err), "usage: loupe "+usageLine(op))
			}
			v.Contents = append(v.Contents, ops.UploadFile{Name: filepath.Base(f), Data: b})
		}
		v.Files = nil
	case *ops.SnapshotIn:
		v.BackendIDs = c.json
	}
	cl, err := c.ensureDaemon(ctx)
	if err != nil {
		return c.fail(apitype.Wrap(apitype.DaemonUnavailable, err, "%v", err))
	}
	raw, err := cl.Call(ctx, op.Name, c.session, in, c.timeout)
	if err != nil {
		var bm *client.BuildMismatch
		if errors.As(err, &bm) {
			e := apitype.Errorf(apitype.DaemonUnavailable, "%v", err)
			e.Hint = "run `loupe daemon stop` to restart the daemon with this build (its sessions will close)"
			return c.fail(e)
		}
		return c.fail(err)
	}
	if outFile != "" {
		return c.writeScreenshot(raw, outFile)
	}
	if c.json {
		fmt.Fprintln(c.stdout, string(raw))
		return 0
	}
	out := op.NewOut()
	if err := json.Unmarshal(raw, out); err != nil {
		return c.fail(err)
	}
	if t, ok := out.(ops.Texter); ok {
		fmt.Fprintln(c.stdout, t.Text())
		return 0
	}
	fmt.Fprintln(c.stdout, string(raw))
	return 0
}

func (c *cmd) writeScreenshot(raw json.RawMessage, path string) int {
	var out ops.ScreenshotOut
	if err := json.Unmarshal(raw, &out); err != nil {
		return c.fail(err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return c.fail(err)
	}
	if err := os.WriteFile(abs, out.PNG, 0o644); err != nil {
		return c.fail(fmt.Errorf("writing %s: %w", path, err))
	}
	out.Path, out.PNG = abs, nil
	return c.print(out, abs)
}

// print writes v as JSON with --json, else the text.
func (c *cmd) print(v any, text string) int {
	if c.json {
		b, _ := json.Marshal(v)
		fmt.Fprintln(c.stdout, string(b))
	} else {
		fmt.Fprintln(c.stdout, text)
	}
	return 0
}

// fail prints a runtime error and returns exit code 1.
func (c *cmd) fail(err error) int {
	e := c.render(err)
	if c.json {
		b, _ := json.Marshal(map[string]*apitype.Error{"error": e})
		fmt.Fprintln(c.stdout, string(b))
		return 1
	}
	msg := fmt.Sprintf("%s: %s", e.Code, e.Message)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	fmt.Fprintln(c.stderr, msg)
	return 1
}

// usage reports a usage error and returns exit code 2.
func (c *cmd) usage(err error, line string) int {
	msg := err.Error()
	if _, ok := apitype.As(err); ok {
		msg = c.render(err).Message
	}
	if c.json {
		e := apitype.Errorf(apitype.BadInput, "%s", msg)
		b, _ := json.Marshal(map[string]*apitype.Error{"error": e})
		fmt.Fprintln(c.stdout, string(b))
		return 2
	}
	fmt.Fprintln(c.stderr, "loupe: "+msg)
	if line != "" {
		fmt.Fprintln(c.stderr, line)
	}
	return 2
}

func (c *cmd) executorConfig() executor.Config {
	cfg := executor.Config{Home: c.home, Chromium: os.Getenv("LOUPE_CHROMIUM"), Headed: os.Getenv("LOUPE_HEADED") == "1"}
	if a := os.Getenv("LOUPE_BROWSER_ARGS"); a != "" {
		cfg.BrowserArgs = strings.Fields(a)
	}
	if os.Getenv("LOUPE_BROWSER_LOG") == "1" {
		cfg.BrowserLog = c.stderr // the daemon's log
	}
	return cfg
}

func (c *cmd) overview() string {
	var b strings.Builder
	b.WriteString("loupe: a browser runtime for AI agents\n\nusage: loupe [--session NAME] [--json] COMMAND [ARGS]\n\nCommands:\n")
	for _, op := range c.reg.All() {
		fmt.Fprintf(&b, "  %-13s %s\n", op.Name, op.Summary)
	}
	b.WriteString("  daemon        start, stop or inspect the background daemon\n")
	b.WriteString("\nTARGET is a ref from the last snapshot: @e12 or e12.\nRun `loupe help COMMAND` for a command's arguments.\n")
	b.WriteString("Environment: LOUPE_HOME (default ~/.loupe), LOUPE_CHROMIUM (browser binary), LOUPE_HEADED=1,\nLOUPE_BROWSER_ARGS (extra browser flags), LOUPE_BROWSER_LOG=1 (browser stderr into the daemon log).\n")
	return b.String()
}

// buildID names this build: a hash of the executable's size and time, so a
// CLI notices a daemon started from an older binary.
func buildID() string {
	exe, err := os.Executable()
	if err != nil {
		return Version
	}
	st, err := os.Stat(exe)
	if err != nil {
		return Version
	}
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%d|%d", Version, st.Size(), st.ModTime().UnixNano())))
	return hex.EncodeToString(h[:6])
}
