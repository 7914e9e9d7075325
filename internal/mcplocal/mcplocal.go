// Package mcplocal is the MCP server's backend that runs an executor in
// this process: loupe mcp without --daemon or --broker. It is on the
// daemon's side of the contract/binding split — it links the engine, the
// ledger and the executor — so the MCP front end (package mcpserver) and
// the command line stay clients only; cmd/loupe wires it in.
package mcplocal

import (
	"context"
	"errors"

	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/mcpserver"
	"github.com/loupe-dev/loupe/internal/system"
)

// Local runs an MCP server's calls on an executor in this process, as the
// server's own caller (session, client, task, grant) of its session.
type Local struct {
	X *executor.Executor
	mcpserver.Caller

	sys *system.System // nil when X was given rather than opened here
}

// Do runs the operation.
func (l *Local) Do(ctx context.Context, c mcpserver.Call) (*mcpserver.Reply, error) {
	r, err := l.X.Do(ctx, executor.Request{Op: c.Op.Name, OpRequest: l.Envelope(c)})
	if err != nil {
		return nil, err
	}
	l.Granted(r.Grant)
	return &mcpserver.Reply{Out: r.Out, OperationID: r.OperationID, Report: r.Report, ApprovedAfter: r.ApprovedAfter, Notice: r.Warning}, nil
}

// Open builds the system of an in-process MCP server of home (see package
// system): the home's ledger (or the PostgreSQL one ledgerURL names, as
// the daemon's), policy and settings, with its sessions
// apart from the daemon's (homedir.MCPHome) and no tabs kept across
// restarts. A browser that a killed server of the home left behind is
// ended first, and a WebDriver session it left on a Grid deleted. The
// caller sets the Caller's fields before the first call.
func Open(ctx context.Context, home, ledgerURL string, browser executor.Config) (*Local, error) {
	system.ReapLeftovers(ctx, home, nil)
	sys, err := system.Open(ctx, system.Config{Home: home, Ledger: ledgerURL, Sessions: homedir.MCPHome(home), Executor: browser})
	if err != nil {
		return nil, err
	}
	return &Local{X: sys.X, sys: sys}, nil
}

// Close ends the sessions and browsers of a Local that Open built, and
// its ledger.
func (l *Local) Close(ctx context.Context) error {
	if l.sys == nil {
		return errors.New("mcplocal: Close of a Local that Open did not build")
	}
	return l.sys.Close(ctx)
}
