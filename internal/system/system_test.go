package system

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/restore"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// The daemon's system opens the home's ledger and policy, keeps its
// sessions' tabs file, and closes both; the in-process MCP server's keeps
// its sessions apart and no tabs file.
func TestOpenAndClose(t *testing.T) {
	for _, keep := range []bool{true, false} {
		home := t.TempDir()
		sessions := filepath.Join(home, "mcp")
		if keep {
			sessions = ""
		}
		sys, err := Open(context.Background(), Config{Home: home, Sessions: sessions, KeepTabs: keep, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(homedir.LedgerPath(home)); err != nil {
			t.Errorf("keep=%v: no ledger at %s: %v", keep, homedir.LedgerPath(home), err)
		}
		if err := sys.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		st, err := restore.Read(homedir.TabsPath(home))
		if keep && (err != nil || !st.Clean) {
			t.Errorf("the daemon's system left no clean tabs file: %+v %v", st, err)
		}
		if _, err := os.Stat(homedir.TabsPath(home)); !keep && err == nil {
			t.Error("the in-process server's system wrote a tabs file")
		}
	}
}

// A policy file that does not parse stops the system from opening, with
// the ledger closed again (the next open of the home succeeds).
func TestBadPolicyClosesTheLedger(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(homedir.PolicyPath(home), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), Config{Home: home, Log: quiet}); err == nil || !strings.Contains(err.Error(), "policy") {
		t.Fatalf("a bad policy file: %v", err)
	}
	os.Remove(homedir.PolicyPath(home))
	sys, err := Open(context.Background(), Config{Home: home, Log: quiet})
	if err != nil {
		t.Fatalf("the home after a failed open: %v", err)
	}
	sys.Close(context.Background())
}

// TestBrowserFromEnv: the browser options the daemon and an in-process
// MCP server start their browsers with come from the environment.
func TestBrowserFromEnv(t *testing.T) {
	t.Setenv("LOUPE_CHROMIUM", "/opt/chromium")
	t.Setenv("LOUPE_HEADED", "")
	t.Setenv("LOUPE_BROWSER_ARGS", " --lang=fr  --mute-audio ")
	t.Setenv("LOUPE_BROWSER_LOG", "1")
	log := &strings.Builder{}
	cfg := BrowserFromEnv(false, log)
	if cfg.Chromium != "/opt/chromium" || cfg.Headed || strings.Join(cfg.BrowserArgs, "|") != "--lang=fr|--mute-audio" || cfg.BrowserLog != log {
		t.Fatalf("from the environment: %+v", cfg)
	}
	if !BrowserFromEnv(true, nil).Headed {
		t.Error("--headed did not show the window")
	}
	t.Setenv("LOUPE_HEADED", "1")
	t.Setenv("LOUPE_BROWSER_LOG", "")
	if cfg := BrowserFromEnv(false, log); !cfg.Headed || cfg.BrowserLog != nil {
		t.Errorf("LOUPE_HEADED=1 without a browser log: %+v", cfg)
	}
}
