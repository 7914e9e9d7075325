package system

import (
	"fmt"
	"os"
	"strconv"

	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// FleetFromEnv sets, as the environment says, where the system's
// sessions take their browsers and how many may hold one:
// LOUPE_GRID=URL (every new session's browser comes from that Selenium
// Grid 4 instead of a local launch), LOUPE_GRID_CAPABILITIES (a JSON
// object of capabilities merged over loupe's Chromium) and
// LOUPE_MAX_SESSIONS=N (at most N sessions with a browser; loupe daemon
// start --max-sessions N sets it). A value loupe cannot use is an error:
// the daemon does not start on a Grid it could never reach.
func FleetFromEnv(cfg *executor.Config) error {
	if u := os.Getenv("LOUPE_GRID"); u != "" {
		g := &sessions.GridSource{URL: u, Capabilities: os.Getenv("LOUPE_GRID_CAPABILITIES")}
		if err := g.Check(); err != nil {
			return fmt.Errorf("LOUPE_GRID, LOUPE_GRID_CAPABILITIES: %w", err)
		}
		cfg.Grid = g
	} else if os.Getenv("LOUPE_GRID_CAPABILITIES") != "" {
		return fmt.Errorf("LOUPE_GRID_CAPABILITIES is set without LOUPE_GRID, the Grid they are for")
	}
	if v := os.Getenv("LOUPE_MAX_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("LOUPE_MAX_SESSIONS=%q: want a number of sessions, 1 or more", v)
		}
		cfg.MaxSessions = n
	}
	return nil
}
