package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// MCP clients' own configuration, for `loupe mcp --print-config CLIENT`:
// the exact snippet each client reads to start `loupe mcp` over stdio
// (the binary by its absolute path, with the other flags given), where
// it goes, and the client's own command that adds it, where it has one.

// mcpClient is one client's way of being told about a server.
type mcpClient struct {
	where   string // the file the snippet goes in
	snippet func(bin string, args []string) string
	add     func(bin string, args []string) string // the client's command line, "" for none
}

var mcpClients = map[string]mcpClient{
	"claude-code": {
		where:   ".mcp.json in the project (or run the command below)",
		snippet: func(bin string, args []string) string { return mcpServersJSON("mcpServers", bin, args, true) },
		add: func(bin string, args []string) string {
			return "claude mcp add loupe -- " + shellWords(append([]string{bin}, args...))
		},
	},
	"claude-desktop": {
		where: "claude_desktop_config.json (Settings → Developer → Edit Config; ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows)",
		snippet: func(bin string, args []string) string {
			return mcpServersJSON("mcpServers", bin, args, false)
		},
	},
	"cursor": {
		where:   "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
		snippet: func(bin string, args []string) string { return mcpServersJSON("mcpServers", bin, args, false) },
	},
	"vscode": {
		where:   ".vscode/mcp.json in the workspace (or run the command below)",
		snippet: func(bin string, args []string) string { return mcpServersJSON("servers", bin, args, true) },
		add: func(bin string, args []string) string {
			b, _ := json.Marshal(map[string]any{"name": "loupe", "type": "stdio", "command": bin, "args": args})
			return "code --add-mcp " + shellWords([]string{string(b)})
		},
	},
	"codex": {
		where: "~/.codex/config.toml (or .codex/config.toml in a trusted project; or run the command below)",
		snippet: func(bin string, args []string) string {
			q := make([]string, len(args))
			for i, a := range args {
				q[i] = tomlString(a)
			}
			return "[mcp_servers.loupe]\ncommand = " + tomlString(bin) + "\nargs = [" + strings.Join(q, ", ") + "]\n"
		},
		add: func(bin string, args []string) string {
			return "codex mcp add loupe -- " + shellWords(append([]string{bin}, args...))
		},
	},
	"windsurf": {
		where:   "~/.codeium/windsurf/mcp_config.json",
		snippet: func(bin string, args []string) string { return mcpServersJSON("mcpServers", bin, args, false) },
	},
}

// mcpClientNames lists the clients --print-config knows.
func mcpClientNames() []string {
	var out []string
	for n := range mcpClients {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// mcpServersJSON is {KEY: {"loupe": {command, args}}}, with "type":
// "stdio" for the clients that want it said.
func mcpServersJSON(key, bin string, args []string, typed bool) string {
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

// shellWords quotes words for a POSIX shell, as recovery hints do.
func shellWords(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = quote(w)
	}
	return strings.Join(out, " ")
}

// printMCPConfig writes a client's snippet to stdout and where it goes,
// with the client's command, to stderr.
func (c *cmd) printMCPConfig(client, bin string, args []string) int {
	cl, ok := mcpClients[client]
	if !ok {
		return c.usage(fmt.Errorf("--print-config %q: want one of %s", client, strings.Join(mcpClientNames(), ", ")), mcpUsage)
	}
	fmt.Fprint(c.stdout, cl.snippet(bin, args))
	fmt.Fprintf(c.stderr, "# %s: put this in %s\n", client, cl.where)
	if cl.add != nil {
		fmt.Fprintf(c.stderr, "# or run:\n%s\n", cl.add(bin, args))
	}
	return 0
}
