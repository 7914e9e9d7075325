// Package historyscript renders `loupe history --as script`: the writes
// that ran, as a shell script of loupe commands that does them again.
package historyscript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/loupe-dev/loupe/internal/locator"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/safetext"
	"github.com/loupe-dev/loupe/internal/shellword"
	"github.com/loupe-dev/loupe/internal/wire"
)

// `loupe history --as script`: the writes that ran, as a shell script of
// loupe commands that does them again. Only executed writes are done
// again; the rest are there as comments saying why not: an unknown
// outcome is never replayed, a write that did not execute did nothing,
// a person's own command (take-over, approvals, settings) is theirs to
// give, and a command that names a tab by its surface id, an element by
// a ref loupe kept no locator for, or whose input was not kept cannot
// mean the same thing in another run. Targets named by ref are written as
// the stable locators the ledger kept for them.

// secretMark stands for a secret's text in a line until the script names
// the variable that gives it.
const secretMark = "\x00secret\x00"

// uploadMark stands for a file the CLI read for an upload (its bytes were
// never kept, nor its path): the script asks for each by the variable
// LOUPE_UPLOAD_N, naming the file as the page saw it.
const uploadMark = "\x00upload\x00"

// Render renders what ran as a script, by the commands of reg.
func Render(reg *ops.Registry, h *ops.HistoryOut) string {
	bin, err := os.Executable()
	if err != nil {
		bin = "loupe"
	}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# What ran, as loupe history printed it: the executed writes, done again.\n")
	b.WriteString("# Run it against a fresh page: LOUPE_SESSION picks the session (default \"default\").\n")
	b.WriteString("set -e\nLOUPE=${LOUPE:-" + shellword.Quote(bin) + "}\nS=${LOUPE_SESSION:-default}\n\n")
	secrets, uploads := 0, 0
	for _, o := range h.Operations {
		line, why := replayLine(reg, o.Op, o.Input, o.Locator)
		for _, name := range uploadedNames(o.Input) {
			if !strings.Contains(line, uploadMark) {
				break
			}
			uploads++
			v := fmt.Sprintf("LOUPE_UPLOAD_%d", uploads)
			line = strings.Replace(line, shellword.Quote(uploadMark), `"$`+v+`"`, 1)
			if why == "" && o.State == wire.OpExecuted {
				fmt.Fprintf(&b, ": \"${%s:?set %s to the path of the file uploaded as %s}\"\n", v, v, inertText(name))
			}
		}
		if strings.Contains(line, secretMark) {
			// What was typed into a password field was never kept: the
			// script asks for it when it runs.
			secrets++
			v := fmt.Sprintf("LOUPE_SECRET_%d", secrets)
			line = strings.Replace(line, shellword.Quote(secretMark), `"$`+v+`"`, 1)
			if why == "" && o.State == wire.OpExecuted {
				fmt.Fprintf(&b, ": \"${%s:?set %s to the secret typed into %s}\"\n", v, v, inertText(o.Locator))
			}
		}
		switch {
		case why != "":
			fmt.Fprintf(&b, "# %s (%s): not done again, %s\n", o.ID, o.State, why)
			if line != "" {
				fmt.Fprintf(&b, "#   %s\n", line)
			}
		case o.State != wire.OpExecuted:
			what := map[wire.OpState]string{wire.OpNotExecuted: "it did not execute", wire.OpUnknown: "its outcome is unknown: loupe never replays it",
				wire.OpReserved: "it was still running"}[o.State]
			fmt.Fprintf(&b, "# %s (%s %s): not done again, %s\n#   %s\n", o.ID, o.State, o.Code, what, line)
		default:
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// replayLine is the command that does a write again, or why there is
// none (the command is still given, to read, where there is one).
func replayLine(reg *ops.Registry, name string, input json.RawMessage, loc string) (line, why string) {
	op, ok := reg.Lookup(name)
	if !ok {
		return "", "loupe no longer has a command " + shellword.Quote(name)
	}
	if op.Action == ops.ActControl {
		return "", "a person's own command (" + name + ")"
	}
	if len(input) == 0 {
		return "", "its input was too large to keep (" + name + ")"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil {
		return "", "its input does not read back"
	}
	if string(fields["secret"]) == "true" {
		fields["text"], _ = json.Marshal(secretMark)
	}
	if names := uploadedNames(input); len(names) > 0 {
		marks := make([]string, len(names))
		for i := range marks {
			marks[i] = uploadMark
		}
		fields["files"], _ = json.Marshal(marks)
		delete(fields, "contents")
	}
	if ref, ok := fields["ref"]; ok {
		var r string
		_ = json.Unmarshal(ref, &r)
		if _, err := locator.NormalizeRef(r); err == nil {
			if loc == "" {
				words, _ := argvOf(op, fields)
				return "$LOUPE --session \"$S\" " + strings.Join(words, " "), "its target " + r + " had no stable locator"
			}
			fields["ref"], _ = json.Marshal(loc)
		}
	}
	words, why := argvOf(op, fields)
	line = "$LOUPE --session \"$S\" " + strings.Join(words, " ")
	if why == "" {
		for _, k := range []string{"surface_id", "from", "to"} {
			if v, ok := fields[k]; ok && !bytes.Equal(v, []byte(`""`)) {
				why = "it names a tab or an element by an id of that run (" + k + ")"
			}
		}
	}
	return line, why
}

// argvOf is the command line that gives op this input: positionals in
// order, then flags. Fields the CLI fills in itself are left out.
func argvOf(op *ops.Op, fields map[string]json.RawMessage) (words []string, why string) {
	words = strings.Fields(op.Name)
	var flags []string
	typ := op.InType()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, given := fields[name]
		if name == "" || name == "-" || !given || f.Tag.Get("cli") != "" {
			continue
		}
		arg, flag := f.Tag.Get("arg"), f.Tag.Get("flag")
		switch {
		case arg != "" && f.Type.Kind() == reflect.Slice:
			var vs []string
			if json.Unmarshal(raw, &vs) != nil {
				return words, "its " + name + " does not read back"
			}
			for _, v := range vs {
				words = append(words, shellword.Quote(v))
			}
		case arg != "":
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return words, "its " + name + " does not read back"
			}
			if v != "" {
				words = append(words, shellword.Quote(v))
			}
		case flag != "" && f.Type.Kind() == reflect.Bool:
			if string(raw) == "true" {
				flags = append(flags, "--"+flag)
			}
		case flag != "":
			var v string
			if json.Unmarshal(raw, &v) != nil {
				v = string(raw) // a number
			}
			if v != "" && v != "0" {
				flags = append(flags, "--"+flag, shellword.Quote(v))
			}
		}
	}
	return append(words, flags...), ""
}

// uploadedNames are the names of the files a CLI upload sent (kept in the
// ledger without their bytes), in order.
func uploadedNames(input json.RawMessage) []string {
	var in struct {
		Contents []struct {
			Name string `json:"name"`
		} `json:"contents"`
	}
	if len(input) == 0 || json.Unmarshal(input, &in) != nil {
		return nil
	}
	names := make([]string, len(in.Contents))
	for i, c := range in.Contents {
		names[i] = c.Name
	}
	return names
}

// inertText is text a script prints in a "${VAR:?message}": the shell
// expands $, ` and \ there and } ends it, so what a page or a file name
// put into a locator or a name must not reach it as it is. Letters,
// digits, spaces and plain punctuation are kept; everything else is "_".
func inertText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		case strings.ContainsRune(" .,:;=_-+/[]()'@#%", r):
			return r
		}
		return '_'
	}, safetext.Line(s))
}
