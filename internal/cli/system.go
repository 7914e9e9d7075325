package cli

import (
	"context"
	"io"

	"github.com/loupe-dev/loupe/internal/mcpserver"
)

// System is what the command line runs in its own process rather than as
// a client of the daemon: the daemon itself (loupe daemon run) and the
// engine of an in-process MCP server (loupe mcp without --daemon or
// --broker). cmd/loupe supplies it from the daemon's side, so that this
// package links none of the engine, the ledger or the executor and starts
// as fast as a client can. A nil function is a binary without that side:
// the command says so and does nothing.
type System struct {
	// RunDaemon serves the daemon of cfg.Home until ctx ends or a client
	// stops it. ready, when not nil, is told "ready\n" once the daemon
	// serves (or "error: …\n") and then closed. When another daemon
	// serves the home already it returns homedir.ErrDaemonRunning.
	RunDaemon func(ctx context.Context, cfg DaemonConfig, ready io.WriteCloser) error
	// LocalMCP builds the system of an in-process MCP server and returns
	// its backend, calling as cfg says, and what ends it (its sessions,
	// their browsers, its ledger).
	LocalMCP func(ctx context.Context, cfg MCPConfig) (mcpserver.Backend, func(context.Context) error, error)
}

// DaemonConfig is a daemon's: its home, its build (reported to clients)
// and its operation ledger's PostgreSQL URL (--ledger, LOUPE_LEDGER; "":
// SQLite in the home).
type DaemonConfig struct {
	Home, Build, Ledger string
}

// MCPConfig is an in-process MCP server's: its home and ledger (as a
// daemon's), the caller its calls come from (see mcpserver.Caller), and
// whether its browser shows its window (--headed; LOUPE_HEADED=1 asks for
// it as well).
type MCPConfig struct {
	Home, Ledger          string
	Session, Client, Task string
	LocalPages, Headed    bool
}
