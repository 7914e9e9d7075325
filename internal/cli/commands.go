package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/nearest"
	"github.com/loupe-dev/loupe/internal/ops"
)

// builtin is a command of the CLI itself rather than an operation of the
// registry. The dispatcher accepts exactly the operations and these, and the
// overview lists both, so a new command cannot be left out of the help.
type builtin struct {
	name    string
	summary string
	help    string // the whole of `loupe help NAME`
	// run gets the words after the name (sub-commands and arguments).
	run func(c *cmd, ctx context.Context, args []string) int
}

const daemonUsage = "usage: loupe daemon start|stop|status|run [--ledger URL] [--max-sessions N]"

func builtins() []*builtin {
	return []*builtin{
		{
			name:    "daemon",
			summary: "start, stop or inspect the background daemon that owns the browsers",
			help: daemonUsage + `

Start, stop or inspect the background daemon that owns the browsers.
The first command starts it on its own.

  start   start the daemon if none is running; --max-sessions N: at most N
          sessions hold a browser at once, local, attached or from a Grid
          (more are refused: TOO_MANY_SESSIONS); LOUPE_MAX_SESSIONS=N too
  stop    end every session and its browser, then the daemon
  status  print the daemon's pid, build, memory and sessions
  run     run the daemon in the foreground (what start runs; logs to stderr)

  --ledger URL  (start, run) keep the operation ledger in PostgreSQL at URL
                (postgres://USER@HOST/DB), shared with the daemons of other
                hosts, instead of SQLite in LOUPE_HOME; LOUPE_LEDGER=URL is
                the same. Keep the password out of the URL (~/.pgpass or
                PGPASSWORD) or use LOUPE_LEDGER: arguments show in ps.
`,
			run: (*cmd).daemonVerb,
		},
		{
			name:    "events",
			summary: "stream what happens (tabs, take-overs, approvals, writes settled, downloads) as NDJSON",
			help:    eventsHelp,
			run:     (*cmd).eventsVerb,
		},
		{
			name:    "help",
			summary: "print this list, or a command's arguments (help COMMAND)",
			help:    "usage: loupe help [COMMAND]\n\nPrint the list of commands, or the arguments of one.\n`loupe COMMAND --help` is the same.\n",
			run:     (*cmd).helpVerb,
		},
		{
			name:    "mcp",
			summary: "serve loupe's tools over the Model Context Protocol (stdio or HTTP)",
			help:    mcpHelp + "\n",
			run:     (*cmd).mcp,
		},
		{
			name:    "skill",
			summary: "write loupe's skill for a coding agent (SKILL.md and references), or print it",
			help:    skillHelp,
			run:     (*cmd).skillVerb,
		},
		{
			name:    "version",
			summary: "print loupe's version and build",
			help:    "usage: loupe version\n\nPrint loupe's version and build: a hash of this executable, which the daemon\nmust share (`loupe --version` is the same).\n",
			run:     (*cmd).versionVerb,
		},
	}
}

// entry is one command: an operation, a builtin, or a group of operations
// that share a first word ("tab" for tab new, tab close, tab activate).
type entry struct {
	name    string
	summary string
	op      *ops.Op
	b       *builtin
	group   []*ops.Op
}

// commands is every command the dispatcher accepts, sorted by name. Groups
// are not commands; their operations are.
func (c *cmd) commands() []entry {
	var out []entry
	for _, op := range c.reg.All() {
		out = append(out, entry{name: op.Name, summary: op.Summary, op: op})
	}
	for _, b := range builtins() {
		out = append(out, entry{name: b.name, summary: b.summary, b: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// groupOf returns the operations named "word …".
func (c *cmd) groupOf(word string) []*ops.Op {
	var g []*ops.Op
	for _, op := range c.reg.All() {
		if first, _, ok := strings.Cut(op.Name, " "); ok && first == word {
			g = append(g, op)
		}
	}
	return g
}

// resolve finds the command words start with, and returns the words after
// it. A group without its second word resolves to the group. helpPrefix is
// how the hint of an unknown command starts ("loupe", "loupe help").
func (c *cmd) resolve(words []string, helpPrefix string) (entry, []string, error) {
	w := words[0]
	if strings.HasPrefix(w, "-") && w != "-" {
		return entry{}, nil, apitype.Errorf(apitype.BadInput, "unknown flag %s before the command (run `loupe help` for the global flags)", w)
	}
	for _, b := range builtins() {
		if b.name == w {
			return entry{name: b.name, summary: b.summary, b: b}, words[1:], nil
		}
	}
	if g := c.groupOf(w); len(g) > 0 {
		if len(words) > 1 {
			if op, ok := c.reg.Lookup(w + " " + words[1]); ok {
				return entry{name: op.Name, summary: op.Summary, op: op}, words[2:], nil
			}
		}
		// A first word that is an operation of its own ("ops" beside
		// "ops show") runs it with the rest as its arguments.
		if op, ok := c.reg.Lookup(w); ok {
			return entry{name: w, summary: op.Summary, op: op}, words[1:], nil
		}
		if len(words) == 1 || strings.HasPrefix(words[1], "-") {
			return entry{name: w, group: g}, words[1:], nil
		}
		return entry{}, nil, c.unknownCommand(w+" "+words[1], helpPrefix)
	}
	if op, ok := c.reg.Lookup(w); ok {
		return entry{name: w, summary: op.Summary, op: op}, words[1:], nil
	}
	return entry{}, nil, c.unknownCommand(w, helpPrefix)
}

// unknownCommand is the usage error for a command no one has, with the
// closest known one when there is a near match.
func (c *cmd) unknownCommand(name, helpPrefix string) *apitype.Error {
	var names []string
	for _, e := range c.commands() {
		names = append(names, e.name)
	}
	e := apitype.Errorf(apitype.BadInput, "unknown command %q", name)
	e.Hint = "run `loupe help` for the list of commands"
	if s := nearest.Name(name, names); s != "" {
		e.Candidates = []string{s}
		e.Hint = fmt.Sprintf("did you mean `%s %s`? (`loupe help` lists every command)", helpPrefix, s)
	}
	return e
}

// groupHelp lists a group's operations.
func groupHelp(name string, g []*ops.Op) string {
	var b strings.Builder
	subs := make([]string, len(g))
	rows := make([][2]string, len(g))
	for i, op := range g {
		subs[i] = strings.TrimPrefix(op.Name, name+" ")
		rows[i] = [2]string{usageLine(op), op.Summary}
	}
	fmt.Fprintf(&b, "usage: loupe %s %s ...\n\n", name, strings.Join(subs, "|"))
	writeRows(&b, rows)
	fmt.Fprintf(&b, "\nRun `loupe help %s COMMAND` for a command's arguments.\n", name)
	return b.String()
}

// groupNeedsCommand is the usage error for a group's first word alone.
func groupNeedsCommand(name string, g []*ops.Op) *apitype.Error {
	subs := make([]string, len(g))
	for i, op := range g {
		subs[i] = strings.TrimPrefix(op.Name, name+" ")
	}
	list := strings.Join(subs[:len(subs)-1], ", ") + " or " + subs[len(subs)-1]
	if len(subs) == 1 {
		list = subs[0]
	}
	e := apitype.Errorf(apitype.BadInput, "%s needs a command: %s", name, list)
	e.Hint = fmt.Sprintf("run `loupe help %s`", name)
	return e
}

// printHelp prints a command's help.
func (c *cmd) printHelp(e entry) int {
	switch {
	case e.op != nil:
		fmt.Fprint(c.stdout, help(e.op))
	case e.b != nil:
		fmt.Fprint(c.stdout, e.b.help)
	default:
		fmt.Fprint(c.stdout, groupHelp(e.name, e.group))
	}
	return 0
}

// helpVerb is `loupe help [COMMAND]`.
func (c *cmd) helpVerb(_ context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stdout, c.overview())
		return 0
	}
	e, rest, err := c.resolve(args, "loupe help")
	if err != nil {
		return c.usage(err, "")
	}
	if len(rest) > 0 && e.b == nil {
		return c.usage(fmt.Errorf("unexpected argument %q", rest[0]), "usage: loupe help [COMMAND]")
	}
	return c.printHelp(e)
}

// versionVerb is `loupe version` (and `loupe --version`).
func (c *cmd) versionVerb(_ context.Context, args []string) int {
	if len(args) > 0 {
		return c.usage(fmt.Errorf("unexpected argument %q", args[0]), "usage: loupe version")
	}
	v := struct {
		Version string `json:"version"`
		Build   string `json:"build"`
	}{Version, buildID()}
	return c.print(v, fmt.Sprintf("loupe %s (build %s)", v.Version, v.Build))
}
