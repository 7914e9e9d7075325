package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/skill"
	"github.com/loupe-dev/loupe/internal/wire"
)

const skillUsage = "usage: loupe skill install [--agent claude|agents|copilot|codex|cursor] [--global] [--dir DIR] | loupe skill print [FILE]"

const skillHelp = skillUsage + `

Teach a coding agent loupe: a short SKILL.md (the workflow, the commands
used most, the rules that keep writes safe) and reference pages (every
command with its arguments, every error code with what to do, the safety
model), generated from loupe's own command descriptions.

  install           write the skill where the agent looks for it:
    --agent NAME    claude (the default), agents, copilot, codex or cursor
    --global        in your home, for every project (default: this one)
    --dir DIR       in DIR instead
  print [FILE]      print SKILL.md, or one of its files
                    (references/commands.md, references/errors.md,
                    references/safety.md)
`

// skillFiles is the skill for this loupe: its commands (operations and
// the CLI's own) and its error codes, in the CLI's terms.
func (c *cmd) skillFiles() map[string]string {
	var cmds []skill.Command
	for _, op := range c.reg.All() {
		sc := skill.Command{Name: op.Name, Usage: usageLine(op), Summary: op.Summary, Group: op.Group,
			Write: op.Kind == ops.Write, Action: string(op.Action), Person: op.NoMCP != "" && op.Action == ops.ActControl}
		for _, t := range op.Tools {
			if !slices.Contains(sc.Tools, t.Name) {
				sc.Tools = append(sc.Tools, t.Name)
			}
		}
		cmds = append(cmds, sc)
	}
	for _, b := range builtins() {
		usage, _, _ := strings.Cut(b.help, "\n")
		cmds = append(cmds, skill.Command{Name: b.name, Usage: strings.TrimPrefix(usage, "usage: loupe "), Summary: b.summary})
	}
	var codes []skill.Code
	for code, hint := range apitype.Hints {
		e := &apitype.Error{Code: code, Hint: hint, Recovery: []apitype.Step{{Op: "daemon start"}}}
		codes = append(codes, skill.Code{Code: string(code), Hint: e.Render(renderer{c.reg}).Hint})
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i].Code < codes[j].Code })
	return skill.Files(cmds, codes, Version)
}

// skillVerb is `loupe skill install|print`.
func (c *cmd) skillVerb(_ context.Context, args []string) int {
	if len(args) == 0 {
		return c.usage(errors.New("skill needs install or print"), skillUsage)
	}
	files := c.skillFiles()
	switch args[0] {
	case "print":
		name := "SKILL.md"
		if len(args) > 2 {
			return c.usage(fmt.Errorf("unexpected argument %q", args[2]), skillUsage)
		}
		if len(args) == 2 {
			name = args[1]
		}
		text, ok := files[name]
		if !ok {
			var names []string
			for n := range files {
				names = append(names, n)
			}
			sort.Strings(names)
			return c.usage(fmt.Errorf("no file %q in the skill (%s)", name, strings.Join(names, ", ")), skillUsage)
		}
		fmt.Fprint(c.stdout, text)
		return 0
	case "install":
		fs := flag.NewFlagSet("skill install", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		agent := fs.String("agent", "claude", "")
		global := fs.Bool("global", false, "")
		dir := fs.String("dir", "", "")
		if err := fs.Parse(args[1:]); err != nil {
			return c.usage(err, skillUsage)
		}
		if fs.NArg() > 0 {
			return c.usage(fmt.Errorf("unexpected argument %q", fs.Arg(0)), skillUsage)
		}
		target := *dir
		if target == "" {
			home, herr := os.UserHomeDir()
			cwd, cerr := os.Getwd()
			if herr != nil || cerr != nil {
				return c.fail(errors.Join(herr, cerr))
			}
			d, err := skill.Dir(*agent, *global, home, cwd)
			if err != nil {
				return c.usage(err, skillUsage)
			}
			target = d
		}
		written, err := skill.Install(target, files)
		if err != nil {
			return c.fail(err)
		}
		out := struct {
			Dir    string   `json:"dir"`
			Files  []string `json:"files"`
			Tokens int      `json:"skill_tokens"`
		}{target, written, wire.Tokens(files["SKILL.md"])}
		return c.print(out, fmt.Sprintf("wrote loupe's skill to %s (SKILL.md ~%d tokens, %d reference pages)", target, out.Tokens, len(written)-1))
	}
	return c.usage(fmt.Errorf("skill %q: want install or print", args[0]), skillUsage)
}
