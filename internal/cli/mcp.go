package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/daemon"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/mcpserver"
)

const mcpHelp = `usage: loupe mcp [--session NAME]

Serve loupe as an MCP server over stdio. It runs its own engine in this
process: a browser session (default name "mcp") started on first use and
closed when the client disconnects. Tools: browser_navigate, browser_snapshot,
browser_click.`

// mcp serves MCP on stdin/stdout until the client goes away.
func (c *cmd) mcp(ctx context.Context) int {
	session := "mcp"
	if c.sessionSet {
		session = c.session
	}
	if err := daemon.PrepareHome(c.home); err != nil {
		return c.fail(err)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	x := executor.New(c.executorConfig())
	srv := mcpserver.New(x, session, Version)
	err := srv.Run(ctx, &mcp.StdioTransport{})
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if cerr := x.Close(cctx); cerr != nil && err == nil {
		err = cerr
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(c.stderr, "loupe mcp:", err)
		return 1
	}
	return 0
}
