package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/nearest"
	"github.com/loupe-dev/loupe/internal/ops"
)

type result struct {
	code           int
	stdout, stderr string
}

// runMain runs the command line with a private LOUPE_HOME. Only commands
// that never reach the daemon belong here.
func runMain(t *testing.T, args ...string) result {
	t.Helper()
	t.Setenv("LOUPE_HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb, System{})
	return result{code, out.String(), errb.String()}
}

// overviewCommands reads the command names from the overview's Commands
// section (a name may be two words: "tab new").
func overviewCommands(t *testing.T, overview string) []string {
	t.Helper()
	_, after, ok := strings.Cut(overview, "\nCommands:\n")
	if !ok {
		t.Fatalf("no Commands section in:\n%s", overview)
	}
	section, _, _ := strings.Cut(after, "\n\n")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		name, _, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok {
			t.Fatalf("command line without a summary: %q", line)
		}
		names = append(names, name)
	}
	return names
}

// The overview lists every command the dispatcher accepts, and the
// dispatcher accepts every command the overview lists.
func TestOverviewListsEveryCommand(t *testing.T) {
	var want []string
	for _, op := range ops.New().All() {
		want = append(want, op.Name)
	}
	// The CLI's own commands, beside the operations.
	for _, b := range builtins() {
		want = append(want, b.name)
	}
	want = append(want, "daemon", "events", "help", "mcp", "version") // never again forgotten
	sort.Strings(want)
	want = slices.Compact(want)

	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {}} {
		r := runMain(t, args...)
		got := overviewCommands(t, r.stdout)
		if !slices.Equal(got, want) {
			t.Errorf("loupe %v lists %v\nwant %v", args, got, want)
		}
	}
	for _, name := range want {
		words := strings.Fields(name)
		for _, args := range [][]string{append([]string{"help"}, words...), append(words, "--help")} {
			r := runMain(t, args...)
			if r.code != 0 || !strings.HasPrefix(r.stdout, "usage: loupe "+name) {
				t.Errorf("loupe %v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
			}
		}
	}
}

func TestOverviewShowsGlobalFlagsAndTargets(t *testing.T) {
	r := runMain(t, "--help")
	for _, want := range []string{
		"--session NAME", "--json", "--timeout DURATION", "-h, --help", "--version",
		"usage: loupe [--session NAME] [--json] [--timeout DURATION] COMMAND [ARGS]",
		"TARGET is a ref", "@e12", `role=button[name="Save"]`, "testid=", "css=", "#email", ">>",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("overview lacks %q", want)
		}
	}
}

// Every flag the overview lists as global is taken out of argv by globals,
// wherever it is.
func TestGlobalFlagsParse(t *testing.T) {
	for _, f := range globalFlags {
		for _, name := range strings.Split(f.name, ", ") {
			args := []string{"click", "@e1", name}
			if f.meta != "" {
				args = append(args, "5s")
			}
			if name == "--version" {
				args = []string{name} // in place of the command
			}
			c := &cmd{reg: ops.New()}
			words, help, err := c.globals(args)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			consumed := c.json || help || c.sessionSet || c.timeoutArg != "" || c.opID != "" || c.task != "" || c.docToken != "" || slices.Equal(words, []string{"version"})
			if !consumed || slices.Contains(words, name) {
				t.Errorf("%s was not taken as a global flag: words %q", name, words)
			}
		}
	}
}

func TestHelpExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // prefix
	}{
		{nil, 2, "loupe: a browser runtime"},
		{[]string{"help"}, 0, "loupe: a browser runtime"},
		{[]string{"--help"}, 0, "loupe: a browser runtime"},
		{[]string{"help", "click"}, 0, "usage: loupe click TARGET"},
		{[]string{"click", "--help"}, 0, "usage: loupe click TARGET"},
		{[]string{"help", "tab"}, 0, "usage: loupe tab activate|close|new"},
		{[]string{"tab", "--help"}, 0, "usage: loupe tab activate|close|new"},
		{[]string{"help", "tab", "new"}, 0, "usage: loupe tab new [URL]"},
		{[]string{"help", "daemon"}, 0, "usage: loupe daemon start|stop|status|run [--ledger URL] [--max-sessions N]"},
		{[]string{"daemon", "stop", "--help"}, 0, "usage: loupe daemon"},
		{[]string{"help", "mcp"}, 0, "usage: loupe mcp"},
		{[]string{"help", "help"}, 0, "usage: loupe help [COMMAND]"},
		{[]string{"help", "version"}, 0, "usage: loupe version"},
	} {
		r := runMain(t, tc.args...)
		if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) {
			t.Errorf("loupe %q: exit %d, stdout %.60q; want exit %d and %q", tc.args, r.code, r.stdout, tc.code, tc.stdout)
		}
	}
}

func TestUnknownCommandsAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		message string
		hint    string // "" means: no suggestion
	}{
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`, ""},
		{[]string{"help", "snapshto"}, `unknown command "snapshto"`, "did you mean `loupe help snapshot`?"},
		{[]string{"help", "tab", "nwe"}, `unknown command "tab nwe"`, "did you mean `loupe help tab new`?"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, ""},
		{[]string{"clik", "@e1"}, `unknown command "clik"`, "did you mean `loupe click`?"},
		{[]string{"scree", "@e1"}, `unknown command "scree"`, "did you mean `loupe screenshot`?"},
		{[]string{"verison"}, `unknown command "verison"`, "did you mean `loupe version`?"},
		{[]string{"tab", "nwe"}, `unknown command "tab nwe"`, "did you mean `loupe tab new`?"},
		{[]string{"tab"}, "tab needs a command: activate, close or new", ""},
		{[]string{"daemon"}, "daemon needs a command", ""},
		{[]string{"daemon", "strat"}, `unknown daemon command "strat"`, ""},
		{[]string{"--bogus", "click"}, "unknown flag --bogus", ""},
		{[]string{"version", "now"}, `unexpected argument "now"`, ""},
		{[]string{"help", "click", "now"}, `unexpected argument "now"`, ""},
	} {
		r := runMain(t, tc.args...)
		if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "loupe: "+tc.message) {
			t.Errorf("loupe %q: exit %d, stdout %.60q, stderr %q; want exit 2 and %q", tc.args, r.code, r.stdout, r.stderr, tc.message)
			continue
		}
		if has := strings.Contains(r.stderr, "did you mean"); tc.hint == "" && has || tc.hint != "" && !strings.Contains(r.stderr, tc.hint) {
			t.Errorf("loupe %q: stderr %q, want suggestion %q", tc.args, r.stderr, tc.hint)
		}
	}
	r := runMain(t, "--json", "clik")
	var got struct {
		Error struct {
			Code       string
			Candidates []string
		}
	}
	if r.code != 2 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Error.Code != "BAD_INPUT" || !slices.Equal(got.Error.Candidates, []string{"click"}) {
		t.Errorf("--json clik: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestVersionFlag(t *testing.T) {
	v := runMain(t, "version")
	f := runMain(t, "--version")
	if v.code != 0 || f.code != 0 || v.stdout != f.stdout {
		t.Fatalf("version: %d %q; --version: %d %q", v.code, v.stdout, f.code, f.stdout)
	}
	if !regexp.MustCompile(`^loupe \S+ \(build [0-9a-f]{12}\)\n$`).MatchString(v.stdout) {
		t.Errorf("version printed %q", v.stdout)
	}
	j := runMain(t, "--json", "--version")
	var got struct{ Version, Build string }
	if j.code != 0 || json.Unmarshal([]byte(j.stdout), &got) != nil || got.Version != Version || got.Build != buildID() {
		t.Errorf("--json --version: %d %q", j.code, j.stdout)
	}
}

func TestClosest(t *testing.T) {
	names := []string{"check", "click", "fill", "open", "screenshot", "snapshot", "tab new", "tabs", "version"}
	for s, want := range map[string]string{
		"clik":      "click",
		"clcik":     "click",
		"snapshto":  "snapshot",
		"snapshoot": "snapshot",
		"tbas":      "tabs",
		"fil":       "fill",
		"scre":      "screenshot", // the start of one name
		"sna":       "snapshot",
		"s":         "",
		"cl":        "", // the start of two
		"frob":      "",
		"xyzzy":     "",
		"open":      "open",
	} {
		if got := nearest.Name(s, names); got != want {
			t.Errorf("nearest.Name(%q) = %q, want %q", s, got, want)
		}
	}
}

// probeTargets finds the string arguments an operation's validation checks
// as a TARGET: set to "@x1" (never a ref), they fail with "is not a ref".
// It tries with the other arguments empty and with them set to a valid ref,
// as validation may stop at another argument first.
func probeTargets(op *ops.Op) []param {
	s := specOf(op.InType())
	var out []param
	for _, p := range append(append([]param(nil), s.pos...), s.flags...) {
		if p.kind != reflect.String {
			continue
		}
		for _, others := range []string{"", "@e1"} {
			v := reflect.New(op.InType()).Elem()
			for i := range v.NumField() {
				if v.Field(i).Kind() == reflect.String && v.Type().Field(i).IsExported() {
					v.Field(i).SetString(others)
				}
			}
			v.Field(p.index).SetString("@x1")
			val, ok := v.Addr().Interface().(ops.Validator)
			if !ok {
				break
			}
			if err := val.Validate(); err != nil && strings.Contains(err.Error(), `"x1" is not a ref`) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// The help of every command that takes an element says that a TARGET may be
// a locator, naming each such argument as its usage line does.
func TestHelpSaysTargetsTakeLocators(t *testing.T) {
	found := 0
	for _, op := range ops.New().All() {
		h := help(op)
		targets := probeTargets(op)
		found += len(targets)
		for _, p := range targets {
			name := p.name
			if p.flag {
				name = flagMeta(p)
			}
			if targetName(p) == "" {
				t.Errorf("%s: %s is validated as a target but not rendered as one", op.Name, name)
			}
			if !regexp.MustCompile(`(?m)^(\S.*)?\b` + name + `\b.* (is|are each) a ref from the latest snapshot`).MatchString(h) {
				t.Errorf("%s: help does not say %s may be a locator:\n%s", op.Name, name, h)
			}
		}
		if len(targets) == 0 && strings.Contains(h, "a ref from the latest snapshot") {
			t.Errorf("%s takes no element, yet its help explains TARGET", op.Name)
		}
		if len(targets) > 0 && !strings.Contains(h, `role=button[name="Save"]`) {
			t.Errorf("%s: help lacks the locator examples", op.Name)
		}
	}
	if found < 20 {
		t.Fatalf("the probe found only %d target arguments: is it still working?", found)
	}
}

// A flag's placeholder is the one its help speaks of: N for a number, the
// upper-case word the help names.
func TestFlagPlaceholdersMatchTheirHelp(t *testing.T) {
	word := regexp.MustCompile(`\b(N|TARGET|URL|TEXT|ID|REF|FILE|DURATION|NAME)\b`)
	for _, op := range ops.New().All() {
		line := usageLine(op)
		h := help(op)
		for _, f := range specOf(op.InType()).flags {
			if f.kind == reflect.Bool {
				continue
			}
			meta := flagMeta(f)
			if f.kind != reflect.String && f.kind != reflect.Slice && meta != "N" && meta != "DURATION" {
				t.Errorf("%s --%s is a number shown as %s", op.Name, f.name, meta)
			}
			words := word.FindAllString(f.help, -1)
			if regexp.MustCompile(`\bfile\b`).MatchString(f.help) {
				words = append(words, "FILE") // "write the PNG to this file"
			}
			for _, w := range words {
				if w != meta {
					t.Errorf("%s --%s: help %q names %s, usage shows %s", op.Name, f.name, f.help, w, meta)
				}
			}
			shown := flagName(f, "|") + " " + meta
			if !strings.Contains(line, "["+shown+"]") || !strings.Contains(h, flagName(f, ", ")+" "+meta+" ") {
				t.Errorf("%s: usage %q or help lacks %q", op.Name, line, shown)
			}
		}
	}
}

func TestTimeoutHandedToWait(t *testing.T) {
	reg := ops.New()
	wait, _ := reg.Lookup("wait")
	click, _ := reg.Lookup("click")
	c := &cmd{reg: reg, timeoutArg: "5s"}
	rest, err := c.applyTimeout(wait, []string{"--text", "x"})
	if err != nil || !slices.Equal(rest, []string{"--text", "x", "--timeout=5s"}) || c.timeout != 0 {
		t.Errorf("wait: rest %q, err %v, timeout %v", rest, err, c.timeout)
	}
	rest, err = c.applyTimeout(click, []string{"@e1"})
	if err != nil || !slices.Equal(rest, []string{"@e1"}) || c.timeout.String() != "5s" {
		t.Errorf("click: rest %q, err %v, timeout %v", rest, err, c.timeout)
	}
	c = &cmd{reg: reg, timeoutArg: "soon"}
	if _, err := c.applyTimeout(click, nil); err == nil || !strings.Contains(err.Error(), "want a duration") {
		t.Errorf("--timeout soon: %v", err)
	}
}

func TestMCPFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" for accepted
	}{
		{[]string{"--http", "127.0.0.1:0", "--token", "auto", "--max-sessions", "4"}, ""},
		{[]string{"--http", "127.0.0.1:8080", "--token", "0123456789abcdef"}, ""},
		{[]string{"--allow-local-pages"}, ""},
		{[]string{"--http", "127.0.0.1:99999"}, "port 99999 is not between 0 and 65535"},
		{[]string{"--http", "0.0.0.0:8080"}, "loopback addresses only"},
		{[]string{"--token", "auto"}, "apply to --http"},
		{[]string{"--http", "127.0.0.1:0", "--token", "short"}, "at least 16"},
		{[]string{"--http", "127.0.0.1:0", "--max-sessions", "0"}, "1 to 1024"},
		{[]string{"--http", "127.0.0.1:0", "--no-token"}, ""},
		{[]string{"--no-token"}, "apply to --http"},
		{[]string{"--http", "127.0.0.1:0", "--no-token", "--token", "auto"}, "give one"},
	} {
		_, err := parseMCPFlags(tc.args)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("parseMCPFlags(%q) = %v, want %q", tc.args, err, tc.want)
		}
	}
	// --http requires a token by default: one is made unless --no-token.
	if f, _ := parseMCPFlags([]string{"--http", "127.0.0.1:0"}); f.token != "auto" {
		t.Errorf("--http alone: token %q, want auto", f.token)
	}
	if f, _ := parseMCPFlags([]string{"--http", "127.0.0.1:0", "--no-token"}); f.token != "" {
		t.Errorf("--no-token: token %q", f.token)
	}
}
