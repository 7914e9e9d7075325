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
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/policy"
	"github.com/loupe-dev/loupe/internal/sessions"
	"github.com/loupe-dev/loupe/internal/settings"
)

// Config says where a system lives and how its browsers start.
type Config struct {
	// Home is LOUPE_HOME: the ledger, the policy and the settings.
	Home string
	// Ledger is the operation ledger's PostgreSQL URL, shared by the
	// daemons of a fleet (LOUPE_LEDGER, loupe daemon start --ledger);
	// "": the ledger is SQLite in Home (homedir.LedgerPath).
	Ledger string
	// Sessions is where the sessions' profiles and files live: Home for
	// the daemon, apart for an in-process MCP server ("": Home).
	Sessions string
	// KeepTabs keeps the sessions' tabs and id numbers across restarts
	// in homedir.TabsPath(Home) (the daemon's sessions).
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

// Open builds the system. Writes that a stopped loupe of this host left
// unsettled are settled as unknown by the ledger as it opens, and said in
// the log.
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
	target := homedir.LedgerPath(cfg.Home)
	if cfg.Ledger != "" {
		// Not shown: a mistyped URL may hold a password.
		if !ledger.IsPostgres(cfg.Ledger) {
			return nil, errors.New("the operation ledger (LOUPE_LEDGER, --ledger) must be a postgres:// or postgresql:// URL; unset, it is SQLite in LOUPE_HOME")
		}
		target = cfg.Ledger
	}
	store, err := ledger.Open(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("opening the operation ledger: %w", err) // the ledger's errors redact a URL's password
	}
	if cfg.Ledger != "" {
		cfg.Log.Info("operation ledger on PostgreSQL", "ledger", ledger.Redact(target), "host", store.Host(), "generation", store.Generation())
	}
	if n := store.Recovered(); n > 0 {
		cfg.Log.Warn("writes left unsettled by a stopped loupe are now unknown (loupe ops --state unknown); none is replayed", "writes", n)
	}
	xc.Store = store
	if xc.Rules, err = policy.Load(homedir.PolicyPath(cfg.Home)); err != nil {
		store.Close()
		return nil, err
	}
	if cfg.KeepTabs {
		xc.TabsFile = homedir.TabsPath(cfg.Home)
	}
	xc.Log = cfg.Log
	return &System{X: executor.New(xc), store: store}, nil
}

// Close ends every session and its browser, then closes the ledger.
func (s *System) Close(ctx context.Context) error {
	return errors.Join(s.X.Close(ctx), s.store.Close())
}

// ReapLeftovers ends the browsers that a daemon or an in-process MCP
// server of this home launched and did not stop because it died, and
// gives back to their Selenium Grids the WebDriver sessions such a
// process took and did not delete (sessions.ReleaseLeftovers: a few
// seconds at most when a Grid does not answer, said in log; nil:
// standard error). Those of processes that still run are left alone.
func ReapLeftovers(ctx context.Context, home string, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	dirs := []string{filepath.Join(home, "sessions"), filepath.Join(homedir.MCPHome(home), "sessions")}
	for _, d := range dirs {
		chromium.Reap(d)
	}
	sessions.ReleaseLeftovers(ctx, log, dirs...)
}

// BrowserFromEnv is how the system's browsers start, as the environment
// says: LOUPE_CHROMIUM (the browser to run; "" finds one), LOUPE_HEADED=1
// (show its window; headed asks for that too), LOUPE_BROWSER_ARGS (more
// flags, split on white space) and LOUPE_BROWSER_LOG=1 (the browser's
// output goes to log). The daemon and an in-process MCP server read it
// alike.
func BrowserFromEnv(headed bool, log io.Writer) executor.Config {
	cfg := executor.Config{Chromium: os.Getenv("LOUPE_CHROMIUM"), Headed: headed || os.Getenv("LOUPE_HEADED") == "1"}
	if a := os.Getenv("LOUPE_BROWSER_ARGS"); a != "" {
		cfg.BrowserArgs = strings.Fields(a)
	}
	if os.Getenv("LOUPE_BROWSER_LOG") == "1" {
		cfg.BrowserLog = log
	}
	return cfg
}
