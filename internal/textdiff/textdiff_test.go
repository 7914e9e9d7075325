package textdiff

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		want           string
	}{
		{"same", "a\nb\nc", "a\nb\nc", ""},
		{"both empty", "", "", ""},
		{"from empty", "", "a\nb", "+ a\n+ b\n"},
		{"to empty", "a\nb\n", "", "- a\n- b\n"},
		{"changed line", "a\n- paragraph: idle\nc", "a\n- paragraph: done\nc", "- - paragraph: idle\n+ - paragraph: done\n"},
		{"insert in middle", "a\nb\nc", "a\nb\nx\nc", "+ x\n"},
		{"remove and add apart", "a\nb\nc\nd\ne", "a\nc\nd\ne\nf", "- b\n+ f\n"},
		{"repeated lines", "x\nx\ny", "x\ny\nx\ny", "+ y\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Lines(c.old, c.new)
			if got := d.Format(100, 10000); got != c.want {
				t.Errorf("diff:\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestLinesMinimal checks the exact diff keeps a longest common
// subsequence: nothing is reported changed that could have been kept.
func TestLinesMinimal(t *testing.T) {
	old := strings.Split("h\na\nb\nc\nb\nd\ne\nf", "\n")
	new := strings.Split("h\nb\nx\nc\nd\nd\nf\ny", "\n")
	d := Lines(strings.Join(old, "\n"), strings.Join(new, "\n"))
	if d.Added-d.Removed != len(new)-len(old) {
		t.Fatalf("added %d removed %d for %d → %d lines", d.Added, d.Removed, len(old), len(new))
	}
	if kept := len(old) - d.Removed; kept != 5 { // h b c d f
		t.Fatalf("kept %d lines, want 5; diff %+v", kept, d.Lines)
	}
}

func TestLinesLargeFallsBack(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, "line "+strings.Repeat("x", i%7)+string(rune('a'+i%26)))
		b = append(b, "other "+string(rune('a'+i%26))+strings.Repeat("y", i%5))
	}
	d := Lines(strings.Join(a, "\n"), strings.Join(b, "\n"))
	if d.Added != 3000 || d.Removed != 3000 {
		t.Fatalf("fallback counts: +%d -%d", d.Added, d.Removed)
	}
}

func TestFormatCaps(t *testing.T) {
	d := Lines("", strings.Repeat("new line\n", 50))
	out := d.Format(10, 10000)
	if strings.Count(out, "+ new line") != 10 || !strings.Contains(out, "… 40 more changed lines (50 added, 0 removed in all)") {
		t.Fatalf("line cap:\n%s", out)
	}
	out = d.Format(100, 40)
	if strings.Count(out, "+ new line") != 3 {
		t.Fatalf("char cap:\n%s", out)
	}
}
