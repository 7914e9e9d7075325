package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/pgtest"
)

// pg is the PostgreSQL server of the fleet tests, started by the first.
var pg pgtest.Shared

// hostOps lists the ledger's entries with their hosts through the CLI.
func hostOps(e *env, args ...string) []struct{ ID, State, Host string } {
	e.t.Helper()
	var out struct {
		Operations []struct {
			ID    string `json:"operation_id"`
			State string `json:"state"`
			Host  string `json:"host"`
		} `json:"operations"`
	}
	e.okJSON(&out, append([]string{"ops"}, args...)...)
	list := make([]struct{ ID, State, Host string }, len(out.Operations))
	for i, o := range out.Operations {
		list[i] = struct{ ID, State, Host string }{o.ID, o.State, o.Host}
	}
	return list
}

// TestFleetPostgresLedger: two daemons, of two homes and two hosts, on one
// PostgreSQL ledger — A's chosen by daemon start --ledger, B's by
// LOUPE_LEDGER. An id A used is refused to B; A's daemon killed mid-write
// leaves the write reserved, which B sees and cannot settle; A's restart
// makes it unknown, which B then lists with A's host. A's log names the
// ledger without its password.
func TestFleetPostgresLedger(t *testing.T) {
	t.Parallel()
	url := pg.URL(t)
	a, b := newEnv(t), newEnv(t)
	a.extra = []string{"LOUPE_HOST=host-a", "LOUPE_LEDGER="} // the flag, not the environment, chooses A's
	b.extra = []string{"LOUPE_HOST=host-b", "LOUPE_LEDGER=" + url}
	srv, keys := countingPage(t, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)

	a.ok("daemon", "start", "--ledger", url)
	a.ok("open", srv.URL+"/")
	a.ok("snapshot")
	a.ok("--op-id", "fleet-done", "type", `role=textbox[name="Notes"]`, "hi")
	b.ok("open", srv.URL+"/")
	b.ok("snapshot")
	eventually(t, "A's keys", func() bool { return keys.Load() == 2 })
	r := b.run("--json", "--op-id", "fleet-done", "type", `role=textbox[name="Notes"]`, "again")
	if code, id, notExec := errorJSON(t, r); code != "DUPLICATE_OPERATION" || id != "fleet-done" || !notExec {
		t.Fatalf("B reusing A's id: exit %d %s %s not_executed=%v", r.code, code, id, notExec)
	}

	// A's daemon killed while it types.
	var st struct {
		PID    int
		Ledger struct{ Backend, Where, Host string }
	}
	a.okJSON(&st, "daemon", "status")
	if l := st.Ledger; l.Backend != "postgres" || l.Host != "host-a" || !strings.HasPrefix(l.Where, "postgres://") || strings.Contains(l.Where, pg.Server(t).Password()) {
		t.Errorf("A's daemon status shows its ledger as %+v, want PostgreSQL without the password, host-a", l)
	}
	if text := b.ok("daemon", "status"); !strings.Contains(text, "\n  ledger: postgres postgres://") || !strings.Contains(text, ", host host-b") {
		t.Errorf("B's daemon status does not name its ledger:\n%s", text)
	}
	done := make(chan result, 1)
	go func() {
		done <- a.run("--json", "--op-id", "fleet-lost", "type", `role=textbox[name="Notes"]`, strings.Repeat("a", 3000))
	}()
	eventually(t, "A's long write reaching the page", func() bool { return keys.Load() >= 20 })
	if err := kill(st.PID); err != nil {
		t.Fatal(err)
	}
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the CLI did not return after A's daemon was killed")
	}
	if code, id, _ := errorJSON(t, r); code != "OUTCOME_UNKNOWN" || id != "fleet-lost" {
		t.Fatalf("A's write with its daemon killed: %s %s", code, id)
	}
	a.waitNoProcesses(15 * time.Second)

	// B cannot tell whether A's daemon runs: the write stays reserved.
	if got := hostOps(b, "--state", "reserved"); len(got) != 1 || got[0].ID != "fleet-lost" || got[0].Host != "host-a" {
		t.Fatalf("B's reserved writes before A restarts: %+v", got)
	}
	if got := hostOps(b, "--state", "unknown"); len(got) != 0 {
		t.Fatalf("B settled A's write: %+v", got)
	}
	// A's restart settles it; both see it unknown, with A's host.
	a.ok("daemon", "start", "--ledger", url)
	for name, e := range map[string]*env{"A": a, "B": b} {
		if got := hostOps(e, "--state", "unknown"); len(got) != 1 || got[0].ID != "fleet-lost" || got[0].Host != "host-a" {
			t.Errorf("%s's unknown writes after A's restart: %+v", name, got)
		}
	}
	if text := b.ok("ops", "--state", "unknown"); !strings.Contains(text, "fleet-lost unknown type") || !strings.Contains(text, "host host-a") {
		t.Errorf("B's ops --state unknown does not name A's host:\n%s", text)
	}
	if text := a.ok("ops", "--state", "unknown"); strings.Contains(text, "host host-a") {
		t.Errorf("A's own write names its host in A's list:\n%s", text)
	}

	log, err := os.ReadFile(homedir.LogPath(a.home))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "operation ledger on PostgreSQL") || strings.Contains(string(log), pg.Server(t).Password()) {
		t.Errorf("A's log should name the ledger, without its password:\n%s", log)
	}
	if _, err := os.Stat(homedir.LedgerPath(a.home)); err == nil {
		t.Error("A keeps a SQLite ledger too")
	}
}

// TestFleetForgetHost: a host that will never come back (here a ledger
// opened as host-gone that reserved a write and was never heard of
// again) is declared gone by a person on another host: `ops forget-host`
// lists its reserved write, now unknown and never replayed; its own host
// is refused with the command that shows what is still reserved. No
// browser is needed.
func TestFleetForgetHost(t *testing.T) {
	t.Parallel()
	url := pg.URL(t)
	ctx := context.Background()
	gone, err := ledger.OpenAs(ctx, url, "host-gone")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gone.Close() })
	if err := gone.Reserve(ctx, ledger.Entry{ID: "left-behind", Session: "work", Op: "click", Action: "click"}); err != nil {
		t.Fatal(err)
	}
	b := newEnv(t)
	b.extra = []string{"LOUPE_HOST=host-b", "LOUPE_LEDGER=" + url}

	if got := hostOps(b, "--state", "reserved"); len(got) != 1 || got[0].ID != "left-behind" || got[0].Host != "host-gone" {
		t.Fatalf("B's reserved writes: %+v", got)
	}
	text := b.ok("ops", "forget-host", "host-gone")
	if !strings.Contains(text, "left-behind unknown click") || !strings.Contains(text, "host host-gone") {
		t.Errorf("ops forget-host does not list the write it made unknown:\n%s", text)
	}
	if got := hostOps(b, "--state", "unknown"); len(got) != 1 || got[0].ID != "left-behind" || got[0].Host != "host-gone" {
		t.Errorf("B's unknown writes after forgetting host-gone: %+v", got)
	}
	if text := b.ok("ops", "forget-host", "host-gone"); strings.TrimSpace(text) != "no operations" {
		t.Errorf("forgetting host-gone again: %q", text)
	}
	r := b.run("ops", "forget-host", "host-b")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "BAD_INPUT: host-b is this daemon's own host") || !strings.Contains(r.stderr, "loupe ops --state reserved") {
		t.Errorf("forgetting B's own host: exit %d\n%s", r.code, r.stderr)
	}
}
