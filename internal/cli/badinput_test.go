package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/ops"
)

// TestEveryFlagRefusesBadValues: for every operation's every flag, a value
// of the wrong kind, a missing value and an unknown flag are usage errors
// (never a zero value taken in silence), and so is an extra argument
// beyond the positionals.
func TestEveryFlagRefusesBadValues(t *testing.T) {
	bad := map[reflect.Kind][]string{
		reflect.Int:     {"x", "1.5", "9223372036854775808"},
		reflect.Int64:   {"x", "1.5", "9223372036854775808"},
		reflect.Float64: {"x", "NaN", "-Inf", "1e400"},
		reflect.Bool:    {"=maybe", "=2"},
	}
	checked := 0
	for _, op := range ops.New().All() {
		s := specOf(op.InType())
		for _, f := range s.flags {
			for _, v := range bad[f.kind] {
				args := []string{"--" + f.name, v}
				if strings.HasPrefix(v, "=") {
					args = []string{"--" + f.name + v}
				}
				if _, err := parseArgs(op, args); err == nil {
					t.Errorf("%s %v: accepted", op.Name, args)
				}
				checked++
			}
			if f.kind != reflect.Bool {
				if _, err := parseArgs(op, []string{"--" + f.name}); err == nil {
					t.Errorf("%s --%s without a value: accepted", op.Name, f.name)
				}
				checked++
			}
		}
		if _, err := parseArgs(op, []string{"--no-such-flag-xyz"}); err == nil {
			t.Errorf("%s --no-such-flag-xyz: accepted", op.Name)
		}
		last := s.pos
		if len(last) == 0 || !last[len(last)-1].rest {
			args := make([]string, 0, len(s.pos)+1)
			for range s.pos {
				args = append(args, "e1")
			}
			if _, err := parseArgs(op, append(args, "extra-argument")); err == nil {
				t.Errorf("%s %v: an extra argument accepted", op.Name, append(args, "extra-argument"))
			}
		}
		checked += 2
	}
	if checked < 100 {
		t.Fatalf("only %d bad inputs tried: the specs were not read", checked)
	}
}
