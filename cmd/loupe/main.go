// Command loupe is a browser runtime for AI agents: a CLI, a daemon that
// owns the browsers, and an MCP server (loupe mcp), in one binary.
package main

import (
	"os"

	"github.com/loupe-dev/loupe/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
