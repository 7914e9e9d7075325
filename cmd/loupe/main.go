// Command loupe is a browser runtime for AI agents: a CLI, a daemon that
// owns the browsers, and an MCP server (loupe mcp), in one binary.
//
// This is where the command line meets the daemon's side. Package cli is a
// client of the daemon and links none of the engine, the ledger or the
// executor; main hands it the two things it runs in its own process — the
// daemon (loupe daemon run) and an in-process MCP server's engine (loupe
// mcp without --daemon or --broker) — built from packages daemon,
// mcplocal and system.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loupe-dev/loupe/internal/cli"
	"github.com/loupe-dev/loupe/internal/daemon"
	"github.com/loupe-dev/loupe/internal/mcplocal"
	"github.com/loupe-dev/loupe/internal/mcpserver"
	"github.com/loupe-dev/loupe/internal/system"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.System{RunDaemon: runDaemon, LocalMCP: localMCP}))
}

// runDaemon serves the daemon of home (its standard error is its log).
func runDaemon(ctx context.Context, cfg cli.DaemonConfig, ready io.WriteCloser) error {
	x := system.BrowserFromEnv(false, os.Stderr)
	if err := system.FleetFromEnv(&x); err != nil {
		if ready != nil { // the CLI that starts it waits to hear why
			fmt.Fprintf(ready, "error: %v\n", err)
			ready.Close()
		}
		return err
	}
	return daemon.Run(ctx, daemon.Config{Home: cfg.Home, Ledger: cfg.Ledger, Build: cfg.Build, Executor: x}, ready)
}

// localMCP builds an in-process MCP server's system and its backend.
func localMCP(ctx context.Context, cfg cli.MCPConfig) (mcpserver.Backend, func(context.Context) error, error) {
	x := system.BrowserFromEnv(cfg.Headed, os.Stderr)
	if err := system.FleetFromEnv(&x); err != nil {
		return nil, nil, err
	}
	l, err := mcplocal.Open(ctx, cfg.Home, cfg.Ledger, x)
	if err != nil {
		return nil, nil, err
	}
	l.Session, l.Client, l.Task, l.LocalPages = cfg.Session, cfg.Client, cfg.Task, cfg.LocalPages
	return l, l.Close, nil
}
