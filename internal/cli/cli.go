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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/buildid"
	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/historyscript"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Version is loupe's release version.
const Version = "0.1.0-dev"

// buildID names this build (buildid.Of), once per process and only for the
// commands that talk to a daemon or print it.
var buildID = sync.OnceValue(func() string { return buildid.Of(Version) })

type cmd struct {
	stdout, stderr io.Writer
	home           string
	session        string
	sessionSet     bool
	json           bool
	timeout        time.Duration
	timeoutArg     string // --timeout as given, until the command is known
	opID           string // --op-id
	task           string // --task, or LOUPE_TASK
	docToken       string // --doc
	reg            *ops.Registry
	sys            System
}

// Main runs the command line and returns the exit code. sys is what it
// runs in its own process (see System).
func Main(args []string, stdout, stderr io.Writer, sys System) int {
	c := &cmd{stdout: stdout, stderr: stderr, reg: ops.New(), session: "default", task: os.Getenv("LOUPE_TASK"), sys: sys}
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
	words, helpWanted, err := c.globals(args)
	if err != nil {
		return c.usage(err, "")
	}
	if len(words) == 0 {
		fmt.Fprint(c.stdout, c.overview())
		if helpWanted {
			return 0
		}
		return 2
	}
	e, rest, err := c.resolve(words, "loupe")
	if err != nil {
		return c.usage(err, "")
	}
	if helpWanted {
		return c.printHelp(e)
	}
	if e.group != nil {
		return c.usage(groupNeedsCommand(e.name, e.group), "")
	}
	op := e.op
	if rest, err = c.applyTimeout(op, rest); err != nil {
		return c.usage(err, "")
	}
	if e.b != nil {
		return e.b.run(c, ctx, rest)
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

// globals takes the global flags out of argv, wherever they are (before a
// "--"), and returns the other words in order. --version in place of the
// command is the version command.
func (c *cmd) globals(args []string) (words []string, helpWanted bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i:]...)
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
		case "--version":
			if len(words) == 0 && !hasVal {
				words = append(words, "version")
				continue
			}
		case "--session", "--timeout", "--op-id", "--doc", "--task":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, false, fmt.Errorf("%s needs a value", name)
				}
				i++
				val = args[i]
			}
			if name == "--session" {
				if !apitype.ValidSession(val) {
					return nil, false, fmt.Errorf("--session %q: %s", val, apitype.SessionRule)
				}
				c.session, c.sessionSet = val, true
				continue
			}
			if name == "--task" {
				if !apitype.ValidOperationID(val) {
					return nil, false, fmt.Errorf("--task %q: use 1 to 64 letters, digits, '.', '_', ':' or '-'", val)
				}
				c.task = val
				continue
			}
			if name == "--doc" {
				c.docToken = val
				continue
			}
			if name == "--op-id" {
				if !apitype.ValidOperationID(val) {
					return nil, false, fmt.Errorf("--op-id %q: use 1 to 64 letters, digits, '.', '_', ':' or '-'", val)
				}
				c.opID = val
				continue
			}
			c.timeoutArg = val
			continue
		}
		words = append(words, a)
	}
	return words, helpWanted, nil
}

// applyTimeout gives the global --timeout to an operation that has a
// --timeout of its own (wait), wherever it was on the line, and otherwise
// makes it the command's deadline; the global --session and --task go to
// an operation that filters by them (history) as well.
func (c *cmd) applyTimeout(op *ops.Op, rest []string) ([]string, error) {
	// An operation with a --session of its own (ops filters by it) takes
	// the global one as well.
	if c.sessionSet && op != nil && specOf(op.InType()).hasFlag("session") {
		rest = append(rest, "--session="+c.session)
	}
	// So does one with a --task of its own (history --task ID).
	if c.task != "" && op != nil && specOf(op.InType()).hasFlag("task") {
		rest = append(rest, "--task="+c.task)
	}
	if c.timeoutArg == "" {
		return rest, nil
	}
	if op != nil && specOf(op.InType()).hasFlag("timeout") {
		return append(rest, "--timeout="+c.timeoutArg), nil
	}
	d, err := time.ParseDuration(c.timeoutArg)
	if err != nil || d < time.Millisecond || d > ops.MaxMillis.Duration() {
		return nil, fmt.Errorf("--timeout %q: want a duration from 1ms to 24h, such as 10s", c.timeoutArg)
	}
	c.timeout = d
	return rest, nil
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
	// A write may also wait for a person's approval (the daemon bounds
	// that by the policy's approval timeout).
	ctx, cancel := c.deadline(ctx, wait+60*time.Second+approvalSlack)
	defer cancel()
	var outFile, snapFile, stateFile, harFile string
	script := false
	switch v := in.(type) {
	case *ops.HistoryIn:
		script = v.As == "script"
	case *ops.ScreenshotIn:
		if v.Out != "" {
			outFile, v.Data = v.Out, true
		}
	case *ops.DropIn:
		var err error
		if v.Contents, err = readUploads(v.Files); err != nil {
			return c.usage(err, "usage: loupe "+usageLine(op))
		}
		v.Files = nil
	case *ops.UploadIn:
		var err error
		if v.Contents, err = readUploads(v.Files); err != nil {
			return c.usage(err, "usage: loupe "+usageLine(op))
		}
		v.Files = nil
	case *ops.SnapshotIn:
		// --json prints each ref's backend node id, one protocol call a
		// ref to look up: not for -o, which prints only where it wrote.
		v.BackendIDs = c.json && v.Out == ""
		snapFile = v.Out
		if v.MaxChars == 0 && v.Out == "" && !c.toTerminal() {
			// An agent reading through a shell pipe gets the budget an
			// MCP agent gets; a person at a terminal sees everything.
			v.MaxChars = ops.DefaultSnapshotChars
		}
	case *ops.StateIn:
		// The person names the file: the CLI reads and writes it with
		// their rights; the daemon sees only its content.
		if op.Name == "state load" {
			b, err := readUpload(v.Path, ops.MaxState, fmt.Sprintf("a storage state is at most %d MiB", ops.MaxState>>20))
			if err != nil {
				return c.usage(err, "usage: loupe "+usageLine(op))
			}
			v.Content, v.Path = b, filepath.Base(v.Path)
		} else {
			stateFile, v.Data = v.Path, true
		}
	case *ops.RouteIn:
		// The person names the body's file: the CLI reads it with their
		// rights; the daemon sees its content and name.
		if v.Fulfill != "" {
			b, err := readUpload(v.Fulfill, ops.MaxRouteBody, fmt.Sprintf("a route's body is at most %d MiB", ops.MaxRouteBody>>20))
			if err != nil {
				return c.usage(err, "usage: loupe "+usageLine(op))
			}
			v.Data, v.Fulfill, v.Read = b, filepath.Base(v.Fulfill), true
		}
	case *ops.NetworkIn:
		if v.HAR != "" {
			harFile, v.Data = v.HAR, true
		}
	case *ops.ImportCookiesIn:
		// A profile named by a relative path is the person's, from where
		// they are: the daemon, which looks for it, works elsewhere.
		if v.Profile != "" {
			abs, err := filepath.Abs(v.Profile)
			if err != nil {
				return c.usage(err, "usage: loupe "+usageLine(op))
			}
			v.Profile = abs
		}
	case *ops.PreviewIn:
		// The person names the file: any they can read, by its whole path.
		abs, err := filepath.Abs(v.Path)
		if err != nil {
			return c.usage(err, "usage: loupe "+usageLine(op))
		}
		v.Path, v.Named = abs, true
	}
	if c.task != "" && !apitype.ValidOperationID(c.task) {
		return c.usage(fmt.Errorf("LOUPE_TASK %q: use 1 to 64 letters, digits, '.', '_', ':' or '-'", c.task), "usage: loupe "+usageLine(op))
	}
	cl, err := c.ensureDaemon(ctx)
	if err != nil {
		return c.fail(apitype.Wrap(apitype.DaemonUnavailable, err, "%v", err))
	}
	// A write gets its operation id before it is sent, so that a lost
	// reply can still name it.
	opID := ""
	if op.KindOf(in) == ops.Write {
		opID = c.opID
		if opID == "" {
			opID = apitype.NewOperationID()
		}
	}
	body, err := json.Marshal(in)
	if err != nil {
		return c.fail(err)
	}
	resp, err := cl.Do(ctx, op.Name, apitype.OpRequest{Session: c.session, Input: body,
		TimeoutMS: c.timeout.Milliseconds(), OperationID: opID, Task: c.task, LocalPages: true, DocumentToken: c.docToken})
	var raw json.RawMessage
	if resp != nil {
		raw = resp.Result
	}
	if err != nil {
		var bm *client.BuildMismatch
		if errors.As(err, &bm) {
			e := apitype.Errorf(apitype.DaemonUnavailable, "%v", err)
			e.Hint = "run `loupe daemon stop` to restart the daemon with this build (its sessions will close)"
			return c.fail(e)
		}
		return c.fail(err)
	}
	if resp.Warning != "" {
		// The write ran; what the ledger says of it is not what happened.
		fmt.Fprintln(c.stderr, "warning:", resp.Warning)
	}
	if outFile != "" {
		return c.writeScreenshot(raw, outFile)
	}
	if snapFile != "" {
		return c.writeSnapshot(raw, snapFile)
	}
	if stateFile != "" {
		return c.writeState(raw, stateFile)
	}
	if harFile != "" {
		return c.writeHAR(raw, harFile)
	}
	if script {
		var h ops.HistoryOut
		if err := json.Unmarshal(raw, &h); err != nil {
			return c.fail(err)
		}
		fmt.Fprint(c.stdout, historyscript.Render(c.reg, &h))
		return 0
	}
	if c.json {
		fmt.Fprintln(c.stdout, string(withOperationID(raw, resp.OperationID)))
		return 0
	}
	out := op.NewOut()
	if err := json.Unmarshal(raw, out); err != nil {
		return c.fail(err)
	}
	if d, ok := in.(*ops.DashboardIn); ok && d.Open {
		c.openInBrowser(out.(*ops.DashboardOut).URL)
	}
	if t, ok := out.(ops.Texter); ok {
		fmt.Fprintln(c.stdout, t.Text())
		if s, ok := out.(*ops.SnapshotOut); ok && s.Truncated {
			fmt.Fprintln(c.stdout, "(the rest: narrow with --scope TARGET, --grep TEXT, --viewport, -i or --depth N, raise --max-chars, or write it all with -o FILE)")
		}
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
	abs, err := writeNew(path, out.PNG)
	if err != nil {
		return c.fail(err)
	}
	out.Path, out.PNG = abs, nil
	return c.print(out, out.Text())
}

// writeState writes a saved storage state to a new file (0600: it holds
// the session's cookies) and prints what it holds.
func (c *cmd) writeState(raw json.RawMessage, path string) int {
	var out ops.StorageStateOut
	if err := json.Unmarshal(raw, &out); err != nil {
		return c.fail(err)
	}
	abs, err := writeNewPerm(path, append(out.State, '\n'), 0o600)
	if err != nil {
		return c.fail(err)
	}
	out.Path, out.State = abs, nil
	return c.print(out, out.Text())
}

// writeHAR writes a tab's captured traffic to a new file (0600: it holds
// the requests' headers, cookies among them) and prints what it holds.
func (c *cmd) writeHAR(raw json.RawMessage, path string) int {
	var out ops.NetworkOut
	if err := json.Unmarshal(raw, &out); err != nil || out.HAR == nil {
		return c.fail(fmt.Errorf("the daemon sent no HAR: %v", err))
	}
	abs, err := writeNewPerm(path, append(out.HAR.Data, '\n'), 0o600)
	if err != nil {
		return c.fail(err)
	}
	out.HAR.Path, out.HAR.Data = abs, nil
	return c.print(out, out.Text())
}

// writeSnapshot writes a snapshot's text to a file, for a shell agent to
// read in parts, and prints where and how big it is.
func (c *cmd) writeSnapshot(raw json.RawMessage, path string) int {
	var out ops.SnapshotOut
	if err := json.Unmarshal(raw, &out); err != nil {
		return c.fail(err)
	}
	abs, err := writeNew(path, []byte(out.Snapshot.Text))
	if err != nil {
		return c.fail(err)
	}
	lines := strings.Count(out.Snapshot.Text, "\n")
	return c.print(map[string]any{"path": abs, "surface_id": out.SurfaceID, "chars": out.Chars, "tokens": out.Tokens, "lines": lines,
		"document_token": out.DocumentToken},
		fmt.Sprintf("%s: snapshot of %s, %d lines, %d chars (~%d tokens)", abs, out.SurfaceID, lines, out.Chars, out.Tokens))
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

// approvalSlack is how long the CLI waits beyond a command's deadline for
// a write held for approval: the daemon ends the wait itself (by default
// after two minutes); this only keeps a hung daemon from hanging the CLI.
const approvalSlack = 10 * time.Minute

// withOperationID adds a write's operation id to its JSON result.
func withOperationID(raw json.RawMessage, id string) json.RawMessage {
	var m map[string]json.RawMessage
	if id == "" || json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	m["operation_id"], _ = json.Marshal(id)
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
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
	// The refs to choose from, as the CLI takes them, as --json gives them.
	if refs := e.Candidates; e.Code == apitype.Ambiguous && len(refs) > 0 {
		fmt.Fprintln(c.stderr, "candidates: "+atRefs(refs))
	}
	if refs := e.SimilarRefs; len(refs) > 0 {
		fmt.Fprintln(c.stderr, "similar now: "+atRefs(refs))
	}
	return 1
}

// atRefs writes refs as the CLI takes them: "@e3 @e7".
func atRefs(refs []string) string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = "@" + strings.TrimPrefix(r, "@")
	}
	return strings.Join(out, " ")
}

// usage reports a usage error and returns exit code 2. A registry error's
// own hint (a suggestion for a mistyped command) is printed after it, then
// line (usually the command's usage).
func (c *cmd) usage(err error, line string) int {
	e, ok := apitype.As(err)
	if !ok {
		e = apitype.Errorf(apitype.BadInput, "%s", err)
	} else if e.Code != apitype.BadInput {
		e = apitype.Errorf(apitype.BadInput, "%s", e.Message)
	}
	generic := e.Hint == apitype.Hints[apitype.BadInput]
	e = e.Render(renderer{c.reg})
	if c.json {
		b, _ := json.Marshal(map[string]*apitype.Error{"error": e})
		fmt.Fprintln(c.stdout, string(b))
		return 2
	}
	fmt.Fprintln(c.stderr, "loupe: "+e.Message)
	if e.Hint != "" && !generic {
		fmt.Fprintln(c.stderr, e.Hint)
	}
	if line != "" {
		fmt.Fprintln(c.stderr, line)
	}
	return 2
}

// toTerminal reports whether standard output is a terminal: a person
// reading, not a program (an agent's shell tool, a pipe, a file).
func (c *cmd) toTerminal() bool {
	f, ok := c.stdout.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// openInBrowser opens an address in the person's own browser, with the
// desktop's opener; without one it says so and the printed address is
// theirs to open.
func (c *cmd) openInBrowser(url string) {
	for _, opener := range []string{"xdg-open", "open"} {
		if p, err := exec.LookPath(opener); err == nil {
			cmd := exec.Command(p, url)
			if cmd.Start() == nil {
				go func() { _ = cmd.Wait() }()
				return
			}
		}
	}
	fmt.Fprintln(c.stderr, "loupe: no xdg-open or open here to open the address with; open it yourself")
}
