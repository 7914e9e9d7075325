package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/wire"
)

// The fleet: daemons of several hosts on one PostgreSQL ledger. Each test
// plays two hosts, A and B, by opening the ledger as each (OpenAs, or a
// child process with its LOUPE_HOST).

const hostA, hostB = "host-a", "host-b"

func openAs(t *testing.T, target, host string) *Ledger {
	t.Helper()
	l, err := OpenAs(context.Background(), target, host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestFleetDuplicate: an id one host used is refused to every other, in
// any state, naming the original and its host.
func TestFleetDuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := pg.URL(t)
	a, b := openAs(t, target, hostA), openAs(t, target, hostB)
	if err := a.Reserve(ctx, Entry{ID: "shared", Session: "on-a", Op: "click", Action: "click", Digest: "da"}); err != nil {
		t.Fatal(err)
	}
	check := func(want wire.OpState) {
		t.Helper()
		err := b.Reserve(ctx, Entry{ID: "shared", Session: "on-b", Op: "type", Action: "type", Digest: "db"})
		var dup *DuplicateError
		if !errors.As(err, &dup) {
			t.Fatalf("host B reusing host A's id: %v, want a *DuplicateError", err)
		}
		if o := dup.Original; o.Host != hostA || o.Session != "on-a" || o.State != want || o.Generation != a.Generation() {
			t.Errorf("the original: %+v, want host A's %s reservation", o, want)
		}
	}
	check(wire.OpReserved)
	if err := a.Settle(ctx, "shared", wire.OpExecuted, "", ""); err != nil {
		t.Fatal(err)
	}
	check(wire.OpExecuted)
	if err := b.Settle(ctx, "shared", wire.OpNotExecuted, "X", "y"); !errors.Is(err, ErrSettled) {
		t.Errorf("host B settling host A's settled write: %v, want ErrSettled", err)
	}
}

// TestFleetUnknownVisible: an unknown outcome one host left is listed,
// read and acknowledged from another, with its host.
func TestFleetUnknownVisible(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := pg.URL(t)
	a, b := openAs(t, target, hostA), openAs(t, target, hostB)
	if err := a.Reserve(ctx, Entry{ID: "lost", Session: "work"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Settle(ctx, "lost", wire.OpUnknown, "OUTCOME_UNKNOWN", "the browser went"); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(ctx, Entry{ID: "fine", Session: "work"}); err != nil {
		t.Fatal(err)
	}
	list, err := b.List(ctx, Filter{State: wire.OpUnknown})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "lost" || list[0].Host != hostA {
		t.Fatalf("host B lists the unknown ones as %+v, want host A's lost", list)
	}
	all, _ := b.List(ctx, Filter{Session: "work"})
	if len(all) != 2 || all[0].Host != hostB || all[1].Host != hostA {
		t.Errorf("host B lists %+v, want its own then host A's", all)
	}
	if e, err := b.Acknowledge(ctx, "lost"); err != nil || e.Acknowledged.IsZero() || e.Host != hostA {
		t.Errorf("host B acknowledging host A's unknown: %+v, %v", e, err)
	}
	if e, _ := a.Get(ctx, "lost"); e.Acknowledged.IsZero() {
		t.Error("host A does not see host B's acknowledgement")
	}
}

// TestFleetKilledMidWrite: a daemon of host A killed right after its
// reservation leaves the row reserved. Host B cannot tell whether A's
// process runs and leaves it so; A's restart makes it unknown, which both
// then read.
func TestFleetKilledMidWrite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := pg.URL(t)
	cmd, gen := startChild(t, target, "op-killed", HostEnv+"="+hostA)
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()

	b := openAs(t, target, hostB)
	if n := b.Recovered(); n != 0 {
		t.Errorf("host B recovered %d entries of host A's", n)
	}
	if n, err := b.Recover(ctx); n != 0 || err != nil {
		t.Errorf("host B's Recover = %d, %v; want 0", n, err)
	}
	if e, err := b.Get(ctx, "op-killed"); err != nil || e.State != wire.OpReserved || e.Host != hostA || e.Generation != gen {
		t.Fatalf("host B reads the killed daemon's write as %+v (%v), want host A's, still reserved", e, err)
	}

	a := openAs(t, target, hostA) // the restart
	if n := a.Recovered(); n != 1 {
		t.Errorf("host A's restart recovered %d, want 1", n)
	}
	wantReason := fmt.Sprintf("loupe (pid %d) stopped before this write was settled", cmd.Process.Pid)
	for name, l := range map[string]*Ledger{"A": a, "B": b} {
		e, err := l.Get(ctx, "op-killed")
		if err != nil || e.State != wire.OpUnknown || e.Code != "OUTCOME_UNKNOWN" || e.Reason != wantReason || e.Host != hostA {
			t.Errorf("host %s reads %+v (%v), want host A's write unknown: %s", name, e, err, wantReason)
		}
		if list, _ := l.List(ctx, Filter{State: wire.OpUnknown}); len(list) != 1 || list[0].ID != "op-killed" {
			t.Errorf("host %s lists the unknown ones as %+v", name, list)
		}
	}
}

// TestFleetRestartSettlesOwnHostOnly: a host's restart settles what its
// own stopped processes left, and never another host's rows — neither
// those of a stopped process of B's nor those of a generation B closed.
func TestFleetRestartSettlesOwnHostOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := pg.URL(t)
	killed := func(id, host string) {
		cmd, _ := startChild(t, target, id, HostEnv+"="+host)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
	killed("a-left", hostA)
	killed("b-left", hostB)
	// A generation of B's closed with a row still reserved: what recovery
	// settles as a closed generation's, on its own host. (Staged by hand:
	// a process of B's that opened the ledger would have recovered b-left.)
	rawExec(t, target, `INSERT INTO generations (id, host, pid, start_ticks, boot_id, opened, closed) VALUES (1000, ?, 1, 1, 'b', 1, 2)`, hostB)
	rawExec(t, target, `INSERT INTO operations (id, session, task, client, generation, surface, epoch, document, op, action, digest, state, code, reason, reserved)
		VALUES ('b-closed', 's', '', '', 1000, '', 0, '', 'click', 'click', 'd', 'reserved', '', '', 1)`)

	a := openAs(t, target, hostA)
	if n := a.Recovered(); n != 1 {
		t.Errorf("host A's restart recovered %d, want 1 (its own)", n)
	}
	state := func(id string) wire.OpState {
		e, err := a.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return e.State
	}
	if s := state("a-left"); s != wire.OpUnknown {
		t.Errorf("host A's own stopped write is %s, want unknown", s)
	}
	for _, id := range []string{"b-left", "b-closed"} {
		if s := state(id); s != wire.OpReserved {
			t.Errorf("host A's restart made host B's %s %s", id, s)
		}
	}
	if n, err := a.Recover(ctx); n != 0 || err != nil {
		t.Errorf("host A's Recover = %d, %v; want 0", n, err)
	}

	b := openAs(t, target, hostB) // B's restart
	if n := b.Recovered(); n != 2 {
		t.Errorf("host B's restart recovered %d, want 2", n)
	}
	for _, id := range []string{"b-left", "b-closed"} {
		if s := state(id); s != wire.OpUnknown {
			t.Errorf("after host B's restart its %s is %s, want unknown", id, s)
		}
	}
}

// TestFleetConcurrentOpen: daemons starting at once on an empty database
// migrate it once and each begin a generation of their own.
func TestFleetConcurrentOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := pg.Database(t)
	const n = 6
	type opened struct {
		l   *Ledger
		err error
	}
	results := make(chan opened, n)
	for i := range n {
		go func() {
			l, err := OpenAs(ctx, target, fmt.Sprintf("host-%d", i%3))
			results <- opened{l, err}
		}()
	}
	gens := map[int64]bool{}
	for range n {
		r := <-results
		if r.err != nil {
			t.Error(r.err)
			continue
		}
		t.Cleanup(func() { r.l.Close() })
		if gens[r.l.Generation()] {
			t.Errorf("generation %d begun twice", r.l.Generation())
		}
		gens[r.l.Generation()] = true
	}
	versions := schemaVersions(t, target)
	steps, err := migrations(pgSchema, "schema/pg")
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != len(steps) {
		t.Errorf("schema_version holds %v, want each of the %d versions once", versions, len(steps))
	}
}

// schemaVersions are the versions schema_version records, in order.
func schemaVersions(t *testing.T, target string) []int {
	t.Helper()
	db := rawPG(t, target)
	rows, err := db.Query(`SELECT version FROM schema_version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestFleetSQLiteJudgesEveryGeneration: a SQLite file is of one machine,
// so a restart settles what any stopped process left, whatever host
// identity it recorded (a renamed machine, LOUPE_HOST set since).
func TestFleetSQLiteJudgesEveryGeneration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target := backends[0].target(t)
	cmd, _ := startChild(t, target, "op-renamed", HostEnv+"="+hostA)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	b := openAs(t, target, hostB)
	if e, _ := b.Get(ctx, "op-renamed"); b.Recovered() != 1 || e.State != wire.OpUnknown || e.Host != hostA {
		t.Errorf("recovered %d; the stopped write is %+v, want unknown, of host A", b.Recovered(), e)
	}
	if !strings.HasPrefix(b.Host(), hostB) {
		t.Errorf("Host() = %q, want %q", b.Host(), hostB)
	}
}
