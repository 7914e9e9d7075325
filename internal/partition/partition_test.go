package partition

import (
	"regexp"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"": Persist, "persist": Persist, "temp:a": "temp:a", "temp:Task_1-x": "temp:Task_1-x"} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"temp:", "temp", "Persist", "temp:a b", "temp:" + strings.Repeat("x", 65), "tmp:a", "temp:a/b", "temp:a\n", "temp:é", "temp:a.b", " temp:a"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	long := strings.Repeat("y", 200)
	if _, err := Parse(long); err == nil || strings.Contains(err.Error(), long) {
		t.Errorf("a long name is quoted whole in %v", err)
	}
}

// FuzzTempName: the hand-written check takes exactly the names the rule's
// regular expression takes.
func FuzzTempName(f *testing.F) {
	rule := regexp.MustCompile(`^temp:[A-Za-z0-9_-]{1,64}$`)
	for _, s := range []string{"temp:", "temp:a", "temp:a b", "temp:" + strings.Repeat("x", 65), "persist", "temp:_-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tempName(s), rule.MatchString(s); got != want {
			t.Errorf("tempName(%q) = %v, the rule says %v", s, got, want)
		}
	})
}
