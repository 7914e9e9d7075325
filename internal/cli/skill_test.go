package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/skill"
	"github.com/loupe-dev/loupe/internal/wire"
)

// TestSkillDescribesEveryCommand: the skill's command reference has every
// operation and every command of the CLI's own, by its usage line; its
// error reference every code of the registry; SKILL.md has the front
// matter agents read and stays within its token budget.
func TestSkillDescribesEveryCommand(t *testing.T) {
	c := &cmd{reg: ops.New()}
	files := c.skillFiles()
	ref := files["references/commands.md"]
	for _, op := range c.reg.All() {
		if !strings.Contains(ref, "- `loupe "+usageLine(op)+"`: "+op.Summary) {
			t.Errorf("the skill does not describe %q", op.Name)
		}
	}
	for _, b := range builtins() {
		if !strings.Contains(ref, "- `loupe "+b.name) {
			t.Errorf("the skill does not describe the CLI's %q", b.name)
		}
	}
	for code := range apitype.Hints {
		if !strings.Contains(files["references/errors.md"], "- `"+string(code)+"`: ") {
			t.Errorf("the skill does not say what to do about %s", code)
		}
	}
	if _, list, _ := strings.Cut(files["references/errors.md"], "What to do:"); strings.Contains(list, "{") {
		t.Errorf("a hint was left in no front end's terms:\n%s", files["references/errors.md"])
	}
	main := files["SKILL.md"]
	front, _, ok := strings.Cut(strings.TrimPrefix(main, "---\n"), "\n---\n")
	if !strings.HasPrefix(main, "---\n") || !ok || !strings.Contains(front, "name: loupe\n") || !strings.Contains(front, "description: ") {
		t.Fatalf("SKILL.md front matter:\n%s", front)
	}
	if n := wire.Tokens(main); n > 1500 {
		t.Errorf("SKILL.md is ~%d tokens, more than 1,500", n)
	}
	for _, name := range skill.Main {
		if _, ok := c.reg.Lookup(name); !ok {
			t.Errorf("SKILL.md names %q, which is no command", name)
		}
		if !strings.Contains(main, "- `loupe "+name) {
			t.Errorf("SKILL.md leaves out %q", name)
		}
	}
	for _, page := range []string{"references/commands.md", "references/errors.md", "references/safety.md"} {
		if !strings.Contains(main, page) {
			t.Errorf("SKILL.md does not point at %s", page)
		}
	}
}

// TestSkillInstall: install writes the skill where the agent looks (or
// in --dir), again over its own files, never over a SKILL.md it did not
// write; print prints it; bad agents and files are usage errors.
func TestSkillInstall(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		c := &cmd{stdout: &out, stderr: &errb, reg: ops.New()}
		code := c.skillVerb(context.Background(), args)
		return code, out.String(), errb.String()
	}
	dir := filepath.Join(t.TempDir(), "skills", "loupe")
	for range 2 { // twice: loupe's own files are written again
		if code, out, errs := run("install", "--dir", dir); code != 0 || !strings.Contains(out, dir) {
			t.Fatalf("install: %d %s %s", code, out, errs)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil || !strings.Contains(string(b), "name: loupe") {
		t.Fatalf("SKILL.md: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "references", "commands.md")); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("print"); code != 0 || out != string(b) {
		t.Errorf("print does not print what install wrote")
	}
	if code, out, _ := run("print", "references/errors.md"); code != 0 || !strings.Contains(out, "STALE_REF") {
		t.Errorf("print references/errors.md: %d", code)
	}
	foreign := filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "SKILL.md"), []byte("---\nname: mine\n---\n"), 0o644)
	if code, _, errs := run("install", "--dir", foreign); code == 0 || !strings.Contains(errs, "not loupe's") {
		t.Errorf("install over a SKILL.md loupe did not write: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "SKILL.md")); string(b) != "---\nname: mine\n---\n" {
		t.Error("the foreign SKILL.md was changed")
	}
	if code, _, errs := run("install", "--dir", foreign); code != 1 || !strings.HasPrefix(errs, "FILE_ERROR: ") {
		t.Errorf("a refused install has no registry code: %d %s", code, errs)
	}
	// A references directory replaced by a link gets nothing written
	// through it.
	linked := filepath.Join(t.TempDir(), "linked")
	elsewhere := t.TempDir()
	os.MkdirAll(linked, 0o755)
	os.Symlink(elsewhere, filepath.Join(linked, "references"))
	if code, _, errs := run("install", "--dir", linked); code != 1 || !strings.Contains(errs, "FILE_ERROR") || !strings.Contains(errs, "references") {
		t.Errorf("install through a linked references/: %d %s", code, errs)
	}
	if list, _ := os.ReadDir(elsewhere); len(list) != 0 {
		t.Errorf("written through the link: %v", list)
	}
	for _, bad := range [][]string{{"install", "--agent", "emacs"}, {"print", "nope.md"}, {"frobnicate"}, {}} {
		if code, _, _ := run(bad...); code != 2 {
			t.Errorf("skill %q: exit %d, want 2", bad, code)
		}
	}
	for agent := range skill.Agents {
		d, err := skill.Dir(agent, true, "/home/u", "/work/p")
		p, _ := skill.Dir(agent, false, "/home/u", "/work/p")
		if err != nil || !strings.HasPrefix(d, "/home/u/") || !strings.HasPrefix(p, "/work/p/") || !strings.HasSuffix(d, "/loupe") {
			t.Errorf("%s: global %q, project %q, %v", agent, d, p, err)
		}
	}
}
