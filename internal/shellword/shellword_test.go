package shellword

import (
	"os/exec"
	"strings"
	"testing"
)

// TestJoinSplitsBack: /bin/sh splits a joined line into the very words,
// whatever they hold.
func TestJoinSplitsBack(t *testing.T) {
	words := []string{"loupe", "", "plain", "two words", "it's", `a"b`, "$HOME", "`x`", `back\slash`, "*?[a]", "#c", "a;b&c|d", "<>()", "~", "{a,b}", "!x", "line\nbreak", "tab\there"}
	out, err := exec.Command("sh", "-c", `eval "set -- $1"; printf '%s\0' "$@"`, "sh", Join(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"); strings.Join(got, "\x00") != strings.Join(words, "\x00") {
		t.Fatalf("sh split %s into %q", Join(words), got)
	}
	if Quote("plain-word_1.2/x=y") != "plain-word_1.2/x=y" {
		t.Errorf("a plain word is quoted: %s", Quote("plain-word_1.2/x=y"))
	}
}
