// Package mcpconfig writes MCP clients' own configuration for `loupe mcp
// --print-config CLIENT`: the exact snippet each client reads to start
// `loupe mcp` over stdio (the binary by its absolute path, with the other
// flags given), where it goes, and the client's own command that adds it,
// where it has one.
package mcpconfig

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/internal/shellword"
)

// Client is one client's way of being told about a server.
type Client struct {
	Where   string // the file the snippet goes in
	snippet func(bin string, args []string) string
	add     func(bin string, args []string) string // the client's command line; nil for none
}

// Snippet is the configuration that starts bin with args.
func (c Client) Snippet(bin string, args []string) string { return c.snippet(bin, args) }

// Add is the client's command line that adds the server ("" when it has
// none).
func (c Client) Add(bin string, args []string) string {
	if c.add == nil {
		return ""
	}
	return c.add(bin, args)
}

// Lookup is the client of that name.
func Lookup(name string) (Client, bool) {
	c, ok := clients()[name]
	return c, ok
}

// Names lists the clients, sorted.
func Names() []string {
	var out []string
	for n := range clients() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func clients() map[string]Client {
	return map[string]Client{
		"claude-code": {
			Where:   ".mcp.json in the project (or run the command below)",
			snippet: func(bin string, args []string) string { return serversJSON("mcpServers", bin, args, true) },
			add: func(bin string, args []string) string {
				return "claude mcp add loupe -- " + shellword.Join(append([]string{bin}, args...))
			},
		},
		"claude-desktop": {
			Where:   "claude_desktop_config.json (Settings → Developer → Edit Config; ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows)",
			snippet: func(bin string, args []string) string { return serversJSON("mcpServers", bin, args, false) },
		},
		"cursor": {
			Where:   "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
			snippet: func(bin string, args []string) string { return serversJSON("mcpServers", bin, args, false) },
		},
		"vscode": {
			Where:   ".vscode/mcp.json in the workspace (or run the command below)",
			snippet: func(bin string, args []string) string { return serversJSON("servers", bin, args, true) },
			add: func(bin string, args []string) string {
				b, _ := json.Marshal(map[string]any{"name": "loupe", "type": "stdio", "command": bin, "args": args})
				return "code --add-mcp " + shellword.Quote(string(b))
			},
		},
		"codex": {
			Where: "~/.codex/config.toml (or .codex/config.toml in a trusted project; or run the command below)",
			snippet: func(bin string, args []string) string {
				q := make([]string, len(args))
				for i, a := range args {
					q[i] = tomlString(a)
				}
				return "[mcp_servers.loupe]\ncommand = " + tomlString(bin) + "\nargs = [" + strings.Join(q, ", ") + "]\n"
			},
			add: func(bin string, args []string) string {
				return "codex mcp add loupe -- " + shellword.Join(append([]string{bin}, args...))
			},
		},
		"windsurf": {
			Where:   "~/.codeium/windsurf/mcp_config.json",
			snippet: func(bin string, args []string) string { return serversJSON("mcpServers", bin, args, false) },
		},
	}
}

// serversJSON is {KEY: {"loupe": {command, args}}}, with "type": "stdio"
// for the clients that want it said.
func serversJSON(key, bin string, args []string, typed bool) string {
	server := map[string]any{"command": bin, "args": args}
	if typed {
		server["type"] = "stdio"
	}
	b, _ := json.MarshalIndent(map[string]any{key: map[string]any{"loupe": server}}, "", "  ")
	return string(b) + "\n"
}

// tomlString is a TOML basic string: a JSON string is one (TOML takes
// the same escapes), without HTML escaping.
func tomlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
