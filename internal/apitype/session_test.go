package apitype

import (
	"strings"
	"testing"
)

func TestValidSession(t *testing.T) {
	for name, want := range map[string]bool{"default": true, "a.b_c-1": true, "9": true, strings.Repeat("a", 64): true,
		"": false, "../x": false, ".hidden": false, "a b": false, "-a": false, "a/b": false, strings.Repeat("a", 65): false} {
		if ValidSession(name) != want {
			t.Errorf("ValidSession(%q) = %v", name, !want)
		}
	}
}
