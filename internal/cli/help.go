package cli

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/internal/ops"
)

// targetHelp says what an element argument is: the overview prints it for
// TARGET, and the help of every command that takes an element prints it
// for its own arguments' names.
func targetHelp(names ...string) string {
	subject := names[0] + " is"
	if len(names) > 1 {
		subject = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are each"
	}
	return subject + ` a ref from the latest snapshot (@e12 or e12) or a locator:
  role=button[name="Save"], testid=save, css=form button, #email, and >> to
  step into a frame: role=iframe[name="Payment"] >> role=button[name="Pay"].
  A locator must match exactly one element on the page, frames included.
`
}

// globalFlag is a flag every command takes, anywhere before "--".
type globalFlag struct {
	name, meta, help string
}

// globalFlags are the flags globals parses; the overview lists them.
var globalFlags = []globalFlag{
	{"--session", "NAME", `the session to use (default "default"); each has its own browser`},
	{"--json", "", "print results and errors as JSON"},
	{"--timeout", "DURATION", "the command's deadline, e.g. 10s (default: the command's own)"},
	{"--op-id", "ID", "a write's operation id in the ledger (default: a new one); an id is used once, ever"},
	{"--task", "ID", "the task you work as (default: $LOUPE_TASK, else \"cli\"); a task writes only in its own tabs"},
	{"--doc", "TOKEN", "refuse the write unless the page still shows the document of this snapshot token"},
	{"-h, --help", "", "show help: the overview, or a command's arguments"},
	{"--version", "", "in place of the command: print the version, as `loupe version`"},
}

// handedOver names the global flags an operation may have as its own: the
// global value is given to it (`wait --text x --timeout 5s` waits 5s).
var handedOver = map[string]string{"timeout": "DURATION", "session": "NAME"}

// overview is `loupe help`: every command, what a TARGET is, the global
// flags and the environment.
func (c *cmd) overview() string {
	var b strings.Builder
	b.WriteString("loupe: a browser runtime for AI agents\n\n")
	b.WriteString("usage: loupe [--session NAME] [--json] [--timeout DURATION] COMMAND [ARGS]\n\nCommands:\n")
	var rows [][2]string
	for _, e := range c.commands() {
		rows = append(rows, [2]string{e.name, e.summary})
	}
	writeRows(&b, rows)
	b.WriteString("\n" + targetHelp("TARGET") + "\nGlobal flags (anywhere before a '--'):\n")
	rows = rows[:0]
	for _, f := range globalFlags {
		rows = append(rows, [2]string{strings.TrimSpace(f.name + " " + f.meta), f.help})
	}
	writeRows(&b, rows)
	b.WriteString("\nRun `loupe help COMMAND` (or `loupe COMMAND --help`) for a command's arguments.\n")
	b.WriteString("Environment: LOUPE_HOME (default ~/.loupe), LOUPE_CHROMIUM (browser binary), LOUPE_HEADED=1,\nLOUPE_BROWSER_ARGS (extra browser flags), LOUPE_BROWSER_LOG=1 (browser stderr into the daemon log),\nLOUPE_GRID=URL and LOUPE_GRID_CAPABILITIES=JSON (browsers from a Selenium Grid), LOUPE_MAX_SESSIONS=N.\n")
	return b.String()
}

// writeRows writes two aligned columns, indented by two spaces.
func writeRows(b *strings.Builder, rows [][2]string) {
	w := 0
	for _, r := range rows {
		w = max(w, len(r[0]))
	}
	for _, r := range rows {
		fmt.Fprintf(b, "  %-*s  %s\n", w, r[0], r[1])
	}
}

var (
	// fileWord is a help text speaking of a file ("write the PNG to this
	// file").
	fileWord = regexp.MustCompile(`\bfile\b`)
	// placeholderWord is an upper-case placeholder a help text names.
	placeholderWord = regexp.MustCompile(`\bTARGET\b`)
	// refWord is a help text speaking of a ref.
	refWord = regexp.MustCompile(`\bref\b`)
)

// flagMeta is the placeholder of a flag's value in usage: its meta tag; N
// for a number; the value of the global flag it takes over (DURATION for
// --timeout); TARGET when its help says the value is a TARGET; FILE when
// the help speaks of a file; else its name in upper case.
func flagMeta(f param) string {
	switch {
	case f.meta != "":
		return f.meta
	case f.kind == reflect.Int || f.kind == reflect.Int64 || f.kind == reflect.Float64:
		return "N"
	case handedOver[f.name] != "":
		return handedOver[f.name]
	case placeholderWord.MatchString(f.help):
		return placeholderWord.FindString(f.help)
	case fileWord.MatchString(f.help):
		return "FILE"
	}
	return strings.ToUpper(f.name)
}

// flagName is "--name", "-o", or "-i|--interactive" (sep "|") for a flag
// with a short form.
func flagName(f param, sep string) string {
	dash := "--"
	if len(f.name) == 1 {
		dash = "-"
	}
	name := dash + f.name
	if f.short != "" {
		name = "-" + f.short + sep + name
	}
	return name
}

// usageLine is "click TARGET [--button BUTTON] …".
func usageLine(op *ops.Op) string {
	s := specOf(op.InType())
	parts := []string{op.Name}
	for _, p := range s.pos {
		switch {
		case p.rest:
			parts = append(parts, p.name+"...")
		case p.optional:
			parts = append(parts, "["+p.name+"]")
		default:
			parts = append(parts, p.name)
		}
	}
	for _, f := range s.flags {
		if f.kind == reflect.Bool {
			parts = append(parts, "["+flagName(f, "|")+"]")
		} else {
			parts = append(parts, "["+flagName(f, "|")+" "+flagMeta(f)+"]")
		}
	}
	return strings.Join(parts, " ")
}

// targetName is the placeholder of an argument that is an element, else
// "": its placeholder is TARGET, its help speaks of a ref (query
// --frame-of "the frame holding this ref") or starts with "element" (drag
// TO "element to drop it on").
func targetName(p param) string {
	if p.flag && p.kind == reflect.Bool {
		return ""
	}
	name := p.name
	if p.flag {
		name = flagMeta(p)
	}
	if name == "TARGET" || refWord.MatchString(p.help) || strings.HasPrefix(p.help, "element") {
		return name
	}
	return ""
}

// help is the full help of an operation.
func help(op *ops.Op) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: loupe %s\n\n%s.\n", usageLine(op), capitalize(op.Summary))
	s := specOf(op.InType())
	var rows [][2]string
	var targets []string
	addTarget := func(p param) {
		if n := targetName(p); n != "" && !slices.Contains(targets, n) {
			targets = append(targets, n)
		}
	}
	for _, p := range s.pos {
		rows = append(rows, [2]string{p.name, p.help})
		addTarget(p)
	}
	for _, f := range s.flags {
		name := flagName(f, ", ")
		if f.kind != reflect.Bool {
			name += " " + flagMeta(f)
		}
		rows = append(rows, [2]string{name, f.help})
		addTarget(f)
	}
	if len(rows) > 0 {
		b.WriteString("\n")
		writeRows(&b, rows)
	}
	if len(targets) > 0 {
		b.WriteString("\n" + targetHelp(targets...))
	}
	b.WriteString("\nGlobal flags: --session NAME, --json, --timeout DURATION (see `loupe help`)\n")
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
