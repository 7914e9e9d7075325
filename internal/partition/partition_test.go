package partition

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"": Persist, "persist": Persist, "temp:a": "temp:a", "temp:Task_1-x": "temp:Task_1-x"} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"temp:", "temp", "Persist", "temp:a b", "temp:" + strings.Repeat("x", 65), "tmp:a", "temp:a/b"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	long := strings.Repeat("y", 200)
	if _, err := Parse(long); err == nil || strings.Contains(err.Error(), long) {
		t.Errorf("a long name is quoted whole in %v", err)
	}
}
