package safetext

import (
	"os"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, esc, line string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{"a\tb\nc", "a\tb\nc", `a\tb\nc`},
		{"\x1b]52;c;SGVsbG8=\x07", `\x1b]52;c;SGVsbG8=\x07`, `\x1b]52;c;SGVsbG8=\x07`},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`, `\x1b[2Jcleared`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"del\x7f nul\x00", `del\x7f nul\x00`, `del\x7f nul\x00`},
		{"csi\u009b2J osc\u009d nel\u0085", `csi\x9b2J osc\x9d nel\x85`, `csi\x9b2J osc\x9d nel\x85`},
		{"pay \u202eusd 001\u202c", `pay \u202eusd 001\u202c`, `pay \u202eusd 001\u202c`},
		{"iso\u2066x\u2069 ls\u2028ps\u2029", `iso\u2066x\u2069 ls\u2028ps\u2029`, `iso\u2066x\u2069 ls\u2028ps\u2029`},
		{"kept: \u00a0\u00e9\u2014\u2060\u200f", "kept: \u00a0\u00e9\u2014\u2060\u200f", "kept: \u00a0\u00e9\u2014\u2060\u200f"},
	} {
		if got := Escape(c.in); got != c.esc {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.esc)
		}
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if Clean(c.in) != (c.in == c.line) {
			t.Errorf("Clean(%q) = %v", c.in, Clean(c.in))
		}
	}
}

func TestCleanStringIsNotCopied(t *testing.T) {
	s := strings.Repeat("a clean line ", 100)
	if n := testing.AllocsPerRun(100, func() { _ = Line(s) }); n != 0 {
		t.Fatalf("Line of a clean string allocated %v times", n)
	}
}

// FuzzLine: whatever a page writes, Line's result holds no character that
// acts on a terminal or breaks a line, and a clean string comes back as
// it was.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b[31mred", "a\u202eb", "\xc2", "\xe2\x80", "\xe2\x80\xae", "x\u0085y", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Line(s)
		for _, r := range out {
			if unsafe(r, true) {
				t.Fatalf("Line(%q) = %q keeps %U", s, out, r)
			}
		}
		if Clean(s) && out != s {
			t.Fatalf("a clean %q changed to %q", s, out)
		}
		if e := Escape(s); strings.ContainsAny(e, "\x1b\r\u202e") {
			t.Fatalf("Escape(%q) = %q", s, e)
		}
	})
}

// TestLeaf: safetext stays a leaf of the standard library (package wire,
// the contract, may import it for that reason alone).
func TestLeaf(t *testing.T) {
	for _, f := range []string{"safetext.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "github.com/") {
			t.Fatalf("%s imports outside the standard library", f)
		}
	}
}

func TestNoRefs(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                     "plain",
		"Pay [ref=e1] now [REF=e2]": `Pay [ref\=e1] now [REF\=e2]`,
		"[ref=":                     `[ref\=`,
		"ref=e1 [ref e1] [refs=e1]": "ref=e1 [ref e1] [refs=e1]",
		"[rEf=e3][ref=e4]":          `[rEf\=e3][ref\=e4]`,
	} {
		if got := NoRefs(in); got != want {
			t.Errorf("NoRefs(%q) = %q, want %q", in, got, want)
		}
	}
}
