// Package system builds loupe's system once, from a config: the settings,
// the operation ledger, the approval policy and the executor (which owns
// the sessions and their browsers). The daemon and the in-process MCP
// server (loupe mcp without --daemon) are its two users: both open the
// same home's ledger, policy and settings, and differ only in where their
// sessions live and whether tabs are kept across restarts.
package system

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/settings"
)

// LedgerPath is the operation ledger in a home. The daemon and in-process
// MCP servers share it; each is a generation of its own.
func LedgerPath(home string) string { return filepath.Join(home, "ledger.db") }

// PolicyPath is the approval policy's file in a home.
func PolicyPath(home string) string { return filepath.Join(home, "policy.json") }

// TabsPath is the file that keeps the sessions' tabs across restarts.
func TabsPath(home string) string { return filepath.Join(home, "tabs.json") }

// Config says where a system lives and how its browsers start.
type Config struct {
	// Home is LOUPE_HOME: the ledger, the policy and the settings.
	Home string
	// Sessions is where the sessions' profiles and files live: Home for
	// the daemon, apart for an in-process MCP server ("": Home).
	Sessions string
	// KeepTabs keeps the sessions' tabs and id numbers across restarts
	// in TabsPath(Home) (the daemon's sessions).
	KeepTabs bool
	// Executor is the browser options and the dashboard; its Home,
	// Settings, Store, Rules, TabsFile and Log are set from the fields
	// above.
	Executor executor.Config
	// Log is where the system says what it could not do (nil: standard
	// error).
	Log *slog.Logger
}

// System is loupe, built: the executor every front end calls.
type System struct {
	X     *executor.Executor
	store *ledger.Ledger
}

// Open builds the system. Writes that a stopped loupe left unsettled are
// settled as unknown by the ledger as it opens, and said in the log.
func Open(ctx context.Context, cfg Config) (*System, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	xc := cfg.Executor
	xc.Home = cfg.Home
	if cfg.Sessions != "" {
		xc.Home = cfg.Sessions
	}
	xc.Settings = settings.Open(cfg.Home)
	store, err := ledger.Open(ctx, LedgerPath(cfg.Home))
	if err != nil {
		return nil, fmt.Errorf("opening the operation ledger: %w", err)
	}
	if n := store.Recovered(); n > 0 {
		cfg.Log.Warn("writes left unsettled by a stopped loupe are now unknown (loupe ops --state unknown); none is replayed", "writes", n)
	}
	xc.Store = store
	if xc.Rules, err = policy.Load(PolicyPath(cfg.Home)); err != nil {
		store.Close()
		return nil, err
	}
	if cfg.KeepTabs {
		xc.TabsFile = TabsPath(cfg.Home)
	}
	xc.Log = cfg.Log
	return &System{X: executor.New(xc), store: store}, nil
}

// Close ends every session and its browser, then closes the ledger.
func (s *System) Close(ctx context.Context) error {
	return errors.Join(s.X.Close(ctx), s.store.Close())
}
