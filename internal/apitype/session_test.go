package apitype

import (
	"regexp"
	"strings"
	"testing"
)

func TestValidSession(t *testing.T) {
	for name, want := range map[string]bool{"default": true, "a.b_c-1": true, "9": true, strings.Repeat("a", 64): true,
		"": false, "../x": false, ".hidden": false, "a b": false, "-a": false, "a/b": false, "a\n": false, "é": false, strings.Repeat("a", 65): false} {
		if ValidSession(name) != want {
			t.Errorf("ValidSession(%q) = %v", name, !want)
		}
	}
}

func TestValidOperationID(t *testing.T) {
	for id, want := range map[string]bool{"op-1f2e": true, "a": true, "x:y.z_w-1": true, "-": true, strings.Repeat("a", 64): true,
		"": false, "a b": false, "a/b": false, "é": false, "op\n": false, strings.Repeat("a", 65): false} {
		if ValidOperationID(id) != want {
			t.Errorf("ValidOperationID(%q) = %v", id, !want)
		}
	}
}

// FuzzNameRules: the hand-written checks take exactly the names the
// rules' regular expressions take.
func FuzzNameRules(f *testing.F) {
	session := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	opID := regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)
	for _, s := range []string{"", "a", "-a", "a-", "op:1", ".x", "a\n", strings.Repeat("z", 64), strings.Repeat("z", 65), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidSession(s), session.MatchString(s); got != want {
			t.Errorf("ValidSession(%q) = %v, the rule says %v", s, got, want)
		}
		if got, want := ValidOperationID(s), opID.MatchString(s); got != want {
			t.Errorf("ValidOperationID(%q) = %v, the rule says %v", s, got, want)
		}
	})
}
