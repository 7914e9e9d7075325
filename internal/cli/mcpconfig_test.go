package cli

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/loupe-dev/loupe/internal/mcpconfig"
)

// TestPrintConfigParses: every client's snippet parses as what that
// client reads, naming the binary and the server's flags exactly — also
// for a path with a space and a quote — and every command line splits,
// in a POSIX shell, into the words it stands for.
func TestPrintConfigParses(t *testing.T) {
	bin := `/opt/my tools/lou'pe`
	args := []string{"mcp", "--session", "work", "--daemon"}
	for _, name := range mcpconfig.Names() {
		var out, errb bytes.Buffer
		c := &cmd{stdout: &out, stderr: &errb}
		if code := c.printMCPConfig(name, bin, args); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errb.String())
		}
		type server struct {
			Type    string   `json:"type" toml:"type"`
			Command string   `json:"command" toml:"command"`
			Args    []string `json:"args" toml:"args"`
		}
		var got server
		switch name {
		case "codex":
			var f struct {
				Servers map[string]server `toml:"mcp_servers"`
			}
			if _, err := toml.Decode(out.String(), &f); err != nil {
				t.Fatalf("codex: %v\n%s", err, out.String())
			}
			got = f.Servers["loupe"]
		case "vscode":
			var f struct{ Servers map[string]server }
			if err := json.Unmarshal(out.Bytes(), &f); err != nil {
				t.Fatalf("vscode: %v", err)
			}
			got = f.Servers["loupe"]
			if got.Type != "stdio" {
				t.Errorf("vscode: type %q", got.Type)
			}
		default:
			var f struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal(out.Bytes(), &f); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = f.MCPServers["loupe"]
		}
		if got.Command != bin || !reflect.DeepEqual(got.Args, args) {
			t.Errorf("%s: command %q args %q\n%s", name, got.Command, got.Args, out.String())
		}
		if !strings.Contains(errb.String(), "put this in") {
			t.Errorf("%s does not say where the snippet goes: %s", name, errb.String())
		}
		// The command line, where the client has one.
		_, line, ok := strings.Cut(errb.String(), "# or run:\n")
		if !ok {
			continue
		}
		words := shellSplit(t, strings.TrimSpace(line))
		switch name {
		case "vscode":
			var s server
			if len(words) != 3 || json.Unmarshal([]byte(words[2]), &s) != nil || s.Command != bin || !reflect.DeepEqual(s.Args, args) {
				t.Errorf("vscode's command line: %q", words)
			}
		default:
			_, rest, _ := strings.Cut(strings.Join(words, "\x00"), "--\x00")
			if rest != strings.Join(append([]string{bin}, args...), "\x00") {
				t.Errorf("%s's command line: %q", name, words)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := (&cmd{stdout: &out, stderr: &errb}).printMCPConfig("emacs", bin, args); code != 2 || out.Len() != 0 {
		t.Errorf("an unknown client: exit %d, printed %q", code, out.String())
	}
}

// shellSplit has /bin/sh split a command line into its words.
func shellSplit(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `eval "set -- $1"; printf '%s\0' "$@"`, "sh", line).Output()
	if err != nil {
		t.Fatalf("sh: %v on %s", err, line)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}
