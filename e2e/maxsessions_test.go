package e2e

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestMaxSessions: a daemon started with --max-sessions 1 runs one
// session with a browser; a second is refused (TOO_MANY_SESSIONS, not
// executed, with the command that makes room) until the first closes.
func TestMaxSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	if r := e.run("daemon", "start", "--max-sessions", "0"); r.code != 2 || !strings.Contains(r.stderr, "want 1 to 10000") {
		t.Errorf("--max-sessions 0: exit %d %s", r.code, r.stderr)
	}
	e.ok("daemon", "start", "--max-sessions", "1")
	e.ok("open", srv.Page("basic.html"))
	r := e.run("--json", "--session", "other", "open", srv.Page("basic.html"))
	if code, _, notExec := errorJSON(t, r); code != "TOO_MANY_SESSIONS" || !notExec || !strings.Contains(r.stdout, "`loupe close`") {
		t.Fatalf("a second session: exit %d %s", r.code, r.stdout)
	}
	e.ok("close")
	e.ok("--session", "other", "open", srv.Page("basic.html"))
}
