package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/ops"
)

func lookup(t *testing.T, name string) *ops.Op {
	t.Helper()
	op, ok := ops.New().Lookup(name)
	if !ok {
		t.Fatalf("no operation %q", name)
	}
	return op
}

func TestUsageLine(t *testing.T) {
	for name, want := range map[string]string{
		"type":       "type [TARGET] TEXT [--clear] [--submit]",
		"fill":       "fill TARGET TEXT",
		"click":      "click TARGET [--button BUTTON] [--modifiers MODIFIERS]",
		"press":      "press KEYS...",
		"select":     "select TARGET VALUE...",
		"scroll":     "scroll [TARGET] [--dx N] [--dy N]",
		"open":       "open URL [--new-tab] [--partition NAME]",
		"snapshot":   "snapshot [-i|--interactive] [--depth N] [--viewport] [--locators] [--scope TARGET] [--max-chars N] [--no-compact] [--no-cache] [--grep TEXT] [--since last] [-o FILE]",
		"screenshot": "screenshot [TARGET] [--full] [--annotate] [-o FILE]",
		"wait":       "wait [--text TEXT] [--target TARGET] [--url PATTERN] [--load] [--text-gone TEXT] [--time DURATION] [--timeout DURATION]",
		"query":      "query [--role ROLE] [--name NAME] [--text TEXT] [--exact] [--within TARGET] [--frame-of TARGET] [--limit N]",
		"attr":       "attr TARGET NAME",
		"tab new":    "tab new [URL] [--partition NAME]",
		"attach":     "attach [--cdp URL] [--chrome] [--channel CHANNEL] [--profile DIR] [--electron-main URL] [--grid URL] [--capabilities JSON]",
		"switch":     "switch SURFACE_ID",
		"dialogs":    "dialogs [--accept] [--dismiss] [--auto] [--prompt-text TEXT]",
		"console":    "console [--surface ID] [--clear]",
		"back":       "back",
	} {
		if got := usageLine(lookup(t, name)); got != want {
			t.Errorf("usageLine(%s) = %q, want %q", name, got, want)
		}
	}
}

// Every registered operation's tags make a usable argv grammar.
func TestEveryOpHasAUsableSpec(t *testing.T) {
	for _, op := range ops.New().All() {
		s := specOf(op.InType())
		line := usageLine(op)
		if !strings.HasPrefix(line, op.Name) {
			t.Errorf("%s: usage %q", op.Name, line)
		}
		seen := map[string]bool{}
		for i, p := range s.pos {
			if p.name == "" || strings.ContainsAny(p.name, "[]. ") {
				t.Errorf("%s: positional %d is named %q", op.Name, i, p.name)
			}
			if p.rest && (i != len(s.pos)-1 || p.kind != reflect.Slice) {
				t.Errorf("%s: %s... must be the last positional and a slice", op.Name, p.name)
			}
			if p.help == "" {
				t.Errorf("%s: %s has no help", op.Name, p.name)
			}
		}
		for _, f := range s.flags {
			if f.name == "" || seen[f.name] || strings.HasPrefix(f.name, "-") {
				t.Errorf("%s: bad or duplicate flag %q", op.Name, f.name)
			}
			seen[f.name] = true
			if f.help == "" {
				t.Errorf("%s: --%s has no help", op.Name, f.name)
			}
			switch f.kind {
			case reflect.Bool, reflect.String, reflect.Int, reflect.Int64, reflect.Float64, reflect.Slice:
			default:
				t.Errorf("%s: --%s has unsupported kind %s", op.Name, f.name, f.kind)
			}
		}
		// No arguments at all either parses or is a clean usage error.
		if _, err := parseArgs(op, nil); err != nil && !strings.HasPrefix(err.Error(), "missing ") {
			t.Errorf("%s with no arguments: %v", op.Name, err)
		}
		if !strings.Contains(help(op), "usage: loupe "+line) {
			t.Errorf("%s: help lacks its usage line", op.Name)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		op   string
		args []string
		want any // a pointer to the op's input
	}{
		// An optional positional takes a token only when the required ones
		// after it are satisfied.
		{"type", []string{"hello"}, &ops.TypeIn{Text: "hello"}},
		{"type", []string{"@e3", "hello"}, &ops.TypeIn{Target: "@e3", Text: "hello"}},
		{"type", []string{"e3", ""}, &ops.TypeIn{Target: "e3"}},
		{"type", []string{"--", "--not-a-flag"}, &ops.TypeIn{Text: "--not-a-flag"}},
		{"type", []string{"@e1", "--", "-x"}, &ops.TypeIn{Target: "@e1", Text: "-x"}},
		{"type", []string{"-"}, &ops.TypeIn{Text: "-"}},
		{"type", []string{"-42"}, &ops.TypeIn{Text: "-42"}},
		{"type", []string{"-1.5e3"}, &ops.TypeIn{Text: "-1.5e3"}},
		{"fill", []string{"@e2", "new text"}, &ops.FillIn{Target: "@e2", Text: "new text"}},
		{"fill", []string{"@e2", ""}, &ops.FillIn{Target: "@e2"}},

		// Rest positionals.
		{"press", []string{"Enter"}, &ops.PressIn{Keys: []string{"Enter"}}},
		{"press", []string{"Control+A", "Backspace", "-"}, &ops.PressIn{Keys: []string{"Control+A", "Backspace", "-"}}},
		{"press", nil, &ops.PressIn{}},
		{"select", []string{"@e4", "France", "Japan"}, &ops.SelectIn{Target: "@e4", Values: []string{"France", "Japan"}}},
		{"select", []string{"@e4"}, &ops.SelectIn{Target: "@e4"}},

		// Flags, before, after and between positionals.
		{"click", []string{"@e1"}, &ops.ClickIn{Target: "@e1"}},
		{"click", []string{"@e1", "--button", "right"}, &ops.ClickIn{Target: "@e1", Button: "right"}},
		{"click", []string{"--button=middle", "@e1"}, &ops.ClickIn{Target: "@e1", Button: "middle"}},
		{"click", []string{"--modifiers", "Control+Shift", "@e1", "--button", "left"}, &ops.ClickIn{Target: "@e1", Button: "left", Modifiers: "Control+Shift"}},
		{"click", []string{"-button", "right", "@e1"}, &ops.ClickIn{Target: "@e1", Button: "right"}},
		{"open", []string{"example.com", "--new-tab"}, &ops.OpenIn{URL: "example.com", NewTab: true}},
		{"open", []string{"--new-tab=false", "example.com"}, &ops.OpenIn{URL: "example.com"}},
		{"open", []string{"--new-tab=true", "example.com"}, &ops.OpenIn{URL: "example.com", NewTab: true}},
		{"snapshot", []string{"--no-compact"}, &ops.SnapshotIn{NoCompact: true}},
		{"snapshot", nil, &ops.SnapshotIn{}},
		{"snapshot", []string{"-i", "--depth", "3", "--scope", "@e4", "--max-chars=500"}, &ops.SnapshotIn{Interactive: true, Depth: 3, Scope: "@e4", MaxChars: 500}},
		{"scroll", []string{"--dy", "-300"}, &ops.ScrollIn{DY: -300}},
		{"scroll", []string{"--dx=12.5", "--dy=-1e2"}, &ops.ScrollIn{DX: 12.5, DY: -100}},
		{"scroll", []string{"@e9"}, &ops.ScrollIn{Target: "@e9"}},
		{"scroll", []string{"@e9", "--dy", "40"}, &ops.ScrollIn{Target: "@e9", DY: 40}},
		{"screenshot", []string{"-o", "out.png", "--full"}, &ops.ScreenshotIn{Out: "out.png", Full: true}},
		{"screenshot", []string{"@e2", "-o=shot.png"}, &ops.ScreenshotIn{Target: "@e2", Out: "shot.png"}},
		{"wait", []string{"--text", "Welcome back"}, &ops.WaitIn{Text: "Welcome back"}},
		{"wait", []string{"--url", "*/done", "--timeout", "5s"}, &ops.WaitIn{URL: "*/done", Timeout: 5000}},
		{"wait", []string{"--load", "--timeout", "750"}, &ops.WaitIn{Load: true, Timeout: 750}},
		{"wait", []string{"--load"}, &ops.WaitIn{Load: true}},
		{"wait", []string{"--text="}, &ops.WaitIn{}},
		{"attr", []string{"@e1", "href"}, &ops.AttrIn{Target: "@e1", Name: "href"}},
		{"tab new", nil, &ops.TabNewIn{}},
		{"tab new", []string{"example.com"}, &ops.TabNewIn{URL: "example.com"}},
		{"eval", []string{"document.title"}, &ops.EvalIn{JS: "document.title"}},
		{"eval", []string{"--", "-1"}, &ops.EvalIn{JS: "-1"}},
		{"attach", []string{"--cdp", "http://127.0.0.1:9222"}, &ops.AttachIn{CDP: "http://127.0.0.1:9222"}},
	} {
		t.Run(tc.op+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := parseArgs(lookup(t, tc.op), tc.args)
			if err != nil {
				t.Fatalf("parseArgs(%q): %v", tc.args, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseArgs(%q) = %+v, want %+v", tc.args, got, tc.want)
			}
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		op   string
		args []string
		want string
	}{
		{"type", nil, "missing TEXT"},
		{"type", []string{"@e1", "a", "b"}, `unexpected argument "b"`},
		{"type", []string{"--bogus"}, "unknown flag --bogus"},
		{"type", []string{"-x", "hi"}, "unknown flag -x"},
		{"fill", []string{"@e1"}, "missing TEXT"},
		{"fill", nil, "missing TARGET"},
		{"attr", []string{"@e1"}, "missing NAME"},
		{"click", nil, "missing TARGET"},
		{"click", []string{"@e1", "--button"}, "flag --button needs a value"},
		{"click", []string{"@e1", "@e2"}, `unexpected argument "@e2"`},
		{"back", []string{"now"}, `unexpected argument "now"`},
		{"snapshot", []string{"--no-compact=maybe"}, "--no-compact=maybe: want true or false"},
		{"scroll", []string{"--dy", "lots"}, `--dy: "lots" is not a finite number`},
		{"scroll", []string{"--dy=", "@e1"}, `--dy=: "" is not a finite number`},
		{"scroll", []string{"--dy", "NaN"}, `--dy: "NaN" is not a finite number`},
		{"scroll", []string{"--dx", "-Inf"}, `--dx: "-Inf" is not a finite number`},
		{"scroll", []string{"--dy", "1e400"}, `--dy: "1e400" is not a finite number`},
		{"scroll", []string{"@e1", "-5"}, `unexpected argument "-5"`},
		{"open", nil, "missing URL"},
		{"open", []string{"--new"}, "unknown flag --new"},
		{"screenshot", []string{"-o"}, "flag -o needs a value"},
		{"tab new", []string{"a.test", "b.test"}, `unexpected argument "b.test"`},
	} {
		t.Run(tc.op+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			got, err := parseArgs(lookup(t, tc.op), tc.args)
			if err == nil {
				t.Fatalf("parseArgs(%q) = %+v, want an error", tc.args, got)
			}
			if err.Error() != tc.want {
				t.Errorf("parseArgs(%q) error %q, want %q", tc.args, err, tc.want)
			}
		})
	}
}

// assignPositionals on grammars no operation has (yet): several optionals,
// an optional before a rest, typed positionals.
func TestAssignPositionals(t *testing.T) {
	type twoOptional struct {
		A string `arg:"[A]"`
		B string `arg:"[B]"`
		C string `arg:"C"`
	}
	type optionalThenRest struct {
		A    string   `arg:"[A]"`
		Rest []string `arg:"REST..."`
	}
	type requiredOptionalRequired struct {
		A string `arg:"A"`
		B string `arg:"[B]"`
		C string `arg:"C"`
	}
	type typed struct {
		N int64   `arg:"N"`
		F float64 `arg:"F"`
	}
	for _, tc := range []struct {
		name string
		v    any // pointer to a zero struct
		toks []string
		want any
		err  string
	}{
		{"only required", &twoOptional{}, []string{"c"}, &twoOptional{C: "c"}, ""},
		{"first optional", &twoOptional{}, []string{"a", "c"}, &twoOptional{A: "a", C: "c"}, ""},
		{"both optionals", &twoOptional{}, []string{"a", "b", "c"}, &twoOptional{A: "a", B: "b", C: "c"}, ""},
		{"too many", &twoOptional{}, []string{"a", "b", "c", "d"}, nil, `unexpected argument "d"`},
		{"missing required", &twoOptional{}, nil, nil, "missing C"},
		{"optional before empty rest", &optionalThenRest{}, []string{"x"}, &optionalThenRest{A: "x"}, ""},
		{"optional then rest", &optionalThenRest{}, []string{"x", "y", "z"}, &optionalThenRest{A: "x", Rest: []string{"y", "z"}}, ""},
		{"nothing for optional and rest", &optionalThenRest{}, nil, &optionalThenRest{}, ""},
		{"middle optional skipped", &requiredOptionalRequired{}, []string{"a", "c"}, &requiredOptionalRequired{A: "a", C: "c"}, ""},
		{"middle optional taken", &requiredOptionalRequired{}, []string{"a", "b", "c"}, &requiredOptionalRequired{A: "a", B: "b", C: "c"}, ""},
		{"middle optional, one token", &requiredOptionalRequired{}, []string{"a"}, nil, "missing C"},
		{"typed", &typed{}, []string{"-3", "2.5"}, &typed{N: -3, F: 2.5}, ""},
		{"not a whole number", &typed{}, []string{"1.5", "2"}, nil, `N: "1.5" is not a whole number`},
		{"not a number", &typed{}, []string{"1", "x"}, nil, `F: "x" is not a finite number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := reflect.ValueOf(tc.v).Elem()
			err := assignPositionals(v, specOf(v.Type()).pos, tc.toks)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.v, tc.want) {
				t.Errorf("got %+v, want %+v", tc.v, tc.want)
			}
		})
	}
}

func TestSpecOfTags(t *testing.T) {
	type in struct {
		Target  string   `arg:"[TARGET]" help:"t"`
		Keys    []string `arg:"KEYS..."`
		Verbose bool     `flag:"verbose" short:"v"`
		Count   int      `flag:"count"`
		Data    bool     // untagged: not on the command line
		hidden  string   `flag:"hidden"`
	}
	_ = in{}.hidden
	s := specOf(reflect.TypeFor[in]())
	if len(s.pos) != 2 || len(s.flags) != 2 {
		t.Fatalf("spec = %+v", s)
	}
	if p := s.pos[0]; p.name != "TARGET" || !p.optional || p.rest || p.help != "t" {
		t.Errorf("TARGET = %+v", p)
	}
	if p := s.pos[1]; p.name != "KEYS" || p.optional || !p.rest {
		t.Errorf("KEYS = %+v", p)
	}
	if f, ok := s.flag("v"); !ok || f.name != "verbose" {
		t.Errorf("short -v = %+v, %v", f, ok)
	}
	if _, ok := s.flag("count"); !ok {
		t.Error("--count not found")
	}
	if _, ok := s.flag("c"); ok {
		t.Error("-c found without a short tag")
	}
	if _, ok := s.flag("hidden"); ok {
		t.Error("unexported field became a flag")
	}
}
