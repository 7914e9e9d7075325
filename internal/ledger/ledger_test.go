package ledger

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/wire"
)

func within(t *testing.T, what string, got, from, to time.Time) {
	t.Helper()
	if got.Before(from.Round(0)) || got.After(to.Round(0)) {
		t.Errorf("%s = %v, not within [%v, %v]", what, got, from, to)
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	eachBackend(t, testRoundTrip)
}

func testRoundTrip(t *testing.T, b backend) {
	ctx := context.Background()
	l, _ := newLedger(t, b)
	in := Entry{
		ID: "op-1", Session: "s1", Task: "t1", Client: "claude", Surface: "tab-3", Epoch: 7,
		Document: "doc-9", Op: "click", Action: "click", Digest: "abc123",
		// What the ledger sets itself; Reserve must not take these from the caller.
		Generation: 999, State: wire.OpExecuted, Code: "X", Reason: "Y", Reserved: time.Unix(1, 0), Settled: time.Unix(2, 0),
	}
	before := time.Now()
	if err := l.Reserve(ctx, in); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got, err := l.Get(ctx, "op-1")
	if err != nil {
		t.Fatal(err)
	}
	within(t, "Reserved", got.Reserved, before, after)
	want := in
	want.Generation, want.State, want.Code, want.Reason = l.Generation(), wire.OpReserved, "", ""
	want.Host = LocalHost()
	want.Reserved, want.Settled = got.Reserved, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after Reserve:\n got %+v\nwant %+v", got, want)
	}

	before = time.Now()
	if err := l.Settle(ctx, "op-1", wire.OpNotExecuted, "DENIED", "policy says no"); err != nil {
		t.Fatal(err)
	}
	after = time.Now()
	got, err = l.Get(ctx, "op-1")
	if err != nil {
		t.Fatal(err)
	}
	within(t, "Settled", got.Settled, before, after)
	want.State, want.Code, want.Reason, want.Settled = wire.OpNotExecuted, "DENIED", "policy says no", got.Settled
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after Settle:\n got %+v\nwant %+v", got, want)
	}
	list, err := l.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !reflect.DeepEqual(list[0], want) {
		t.Errorf("List = %+v, want [%+v]", list, want)
	}

	if err := l.Settle(ctx, "op-1", wire.OpExecuted, "", ""); !errors.Is(err, ErrSettled) {
		t.Errorf("settling twice: %v, want ErrSettled", err)
	}
	if got, _ := l.Get(ctx, "op-1"); got.State != wire.OpNotExecuted {
		t.Errorf("a second Settle changed the outcome to %s", got.State)
	}
	if err := l.Settle(ctx, "op-none", wire.OpExecuted, "", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("settling an id never reserved: %v, want ErrNotFound", err)
	}
	if _, err := l.Get(ctx, "op-none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an id never reserved: %v, want ErrNotFound", err)
	}
	if err := l.Reserve(ctx, Entry{ID: "op-2"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(ctx, "op-2", wire.OpReserved, "", ""); err == nil || errors.Is(err, ErrSettled) {
		t.Errorf("settling as reserved: %v, want a refusal", err)
	}
	if err := l.Reserve(ctx, Entry{Session: "s1"}); err == nil {
		t.Error("Reserve took an entry without an id")
	}
}

func TestDuplicate(t *testing.T) {
	t.Parallel()
	eachBackend(t, testDuplicate)
}

func testDuplicate(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	l := openAt(t, path)
	first := func(id string) Entry {
		return Entry{ID: id, Session: "first", Op: "click", Action: "click", Digest: "d1"}
	}
	for _, id := range []string{"executed", "not-executed", "unknown", "reserved"} {
		if err := l.Reserve(ctx, first(id)); err != nil {
			t.Fatal(err)
		}
	}
	for id, s := range map[string]wire.OpState{"executed": wire.OpExecuted, "not-executed": wire.OpNotExecuted, "unknown": wire.OpUnknown} {
		if err := l.Settle(ctx, id, s, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	again := func(t *testing.T, l *Ledger, id string, want wire.OpState) {
		t.Helper()
		err := l.Reserve(ctx, Entry{ID: id, Session: "second", Op: "type", Action: "type", Digest: "d2"})
		var dup *DuplicateError
		if !errors.As(err, &dup) {
			t.Fatalf("reserving %s again: %v, want a *DuplicateError", id, err)
		}
		if dup.Original.ID != id || dup.Original.State != want || dup.Original.Session != "first" || dup.Original.Digest != "d1" {
			t.Errorf("reserving %s again: original %+v, want the first reservation, %s", id, dup.Original, want)
		}
		if !strings.Contains(err.Error(), string(want)) {
			t.Errorf("error %q does not name the original's state", err)
		}
		if got, _ := l.Get(ctx, id); got.Session != "first" || got.State != want {
			t.Errorf("the refused reservation changed the entry: %+v", got)
		}
	}
	t.Run("same generation", func(t *testing.T) {
		again(t, l, "executed", wire.OpExecuted)
		again(t, l, "not-executed", wire.OpNotExecuted)
		again(t, l, "unknown", wire.OpUnknown)
		again(t, l, "reserved", wire.OpReserved)
	})
	t.Run("after reopen", func(t *testing.T) {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		l2 := openAt(t, path)
		again(t, l2, "executed", wire.OpExecuted)
		again(t, l2, "not-executed", wire.OpNotExecuted)
		again(t, l2, "unknown", wire.OpUnknown)
		again(t, l2, "reserved", wire.OpUnknown) // Close made it unknown
	})
}

func TestGenerations(t *testing.T) {
	t.Parallel()
	eachBackend(t, testGenerations)
}

func testGenerations(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	var last int64
	for i := range 3 {
		l := openAt(t, path)
		if g := l.Generation(); g <= last {
			t.Errorf("open %d: generation %d, not after %d", i, g, last)
		}
		last = l.Generation()
		id := "op-" + strconv.Itoa(i)
		if err := l.Reserve(ctx, Entry{ID: id}); err != nil {
			t.Fatal(err)
		}
		if e, _ := l.Get(ctx, id); e.Generation != last {
			t.Errorf("entry has generation %d, want %d", e.Generation, last)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Two open at once have generations of their own.
	first, second := openAt(t, path), openAt(t, path)
	if first.Generation() <= last || second.Generation() <= first.Generation() {
		t.Errorf("generations %d and %d after %d", first.Generation(), second.Generation(), last)
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	eachBackend(t, testClose)
}

func testClose(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	l := openAt(t, path)
	if err := l.Reserve(ctx, Entry{ID: "left"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(ctx, Entry{ID: "done"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(ctx, "done", wire.OpExecuted, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := l.Reserve(ctx, Entry{ID: "late"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Reserve after Close: %v, want ErrClosed", err)
	}
	if _, err := l.Get(ctx, "left"); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}

	l2 := openAt(t, path)
	if n := l2.Recovered(); n != 0 {
		t.Errorf("Recovered = %d, want 0: Close settled what it left", n)
	}
	e, err := l2.Get(ctx, "left")
	if err != nil {
		t.Fatal(err)
	}
	wantReason := fmt.Sprintf("loupe (pid %d) closed its ledger", os.Getpid())
	if e.State != wire.OpUnknown || e.Code != "OUTCOME_UNKNOWN" || !strings.Contains(e.Reason, wantReason) || e.Settled.IsZero() {
		t.Errorf("entry left reserved at Close: %+v, want unknown, OUTCOME_UNKNOWN, %q", e, wantReason)
	}
	if e, _ := l2.Get(ctx, "done"); e.State != wire.OpExecuted {
		t.Errorf("a settled entry became %s at Close", e.State)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	eachBackend(t, testList)
}

func testList(t *testing.T, b backend) {
	ctx := context.Background()
	l, _ := newLedger(t, b)
	for _, e := range []struct {
		id, session string
		state       wire.OpState
	}{
		{"a", "s1", wire.OpExecuted}, {"b", "s1", wire.OpNotExecuted}, {"c", "s1", wire.OpReserved}, {"d", "s2", wire.OpExecuted}, {"e", "s2", wire.OpUnknown},
	} {
		if err := l.Reserve(ctx, Entry{ID: e.id, Session: e.session}); err != nil {
			t.Fatal(err)
		}
		if e.state != wire.OpReserved {
			if err := l.Settle(ctx, e.id, e.state, "", ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"all, most recent first", Filter{}, []string{"e", "d", "c", "b", "a"}},
		{"by state", Filter{State: wire.OpExecuted}, []string{"d", "a"}},
		{"reserved", Filter{State: wire.OpReserved}, []string{"c"}},
		{"by session", Filter{Session: "s1"}, []string{"c", "b", "a"}},
		{"by state and session", Filter{State: wire.OpExecuted, Session: "s1"}, []string{"a"}},
		{"limit", Filter{Limit: 2}, []string{"e", "d"}},
		{"limit with filter", Filter{Session: "s1", Limit: 1}, []string{"c"}},
		{"nothing", Filter{Session: "nobody"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := l.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, e := range got {
				ids = append(ids, e.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("List(%+v) = %v, want %v", tc.f, ids, tc.want)
			}
		})
	}
	if _, err := l.List(ctx, Filter{State: "done"}); err == nil {
		t.Error("List took a state that does not exist")
	}
}

func TestListDefaultLimit(t *testing.T) {
	t.Parallel()
	eachBackend(t, testListDefaultLimit)
}

func testListDefaultLimit(t *testing.T, b backend) {
	ctx := context.Background()
	l, _ := newLedger(t, b)
	for i := range 105 {
		if err := l.Reserve(ctx, Entry{ID: "op-" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 100 || got[0].ID != "op-104" || got[99].ID != "op-5" {
		t.Errorf("List{} gave %d entries, %s … %s; want 100, op-104 … op-5", len(got), got[0].ID, got[len(got)-1].ID)
	}
}

func TestConcurrentReserve(t *testing.T) {
	t.Parallel()
	eachBackend(t, testConcurrentReserve)
}

func testConcurrentReserve(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	l := openAt(t, path)
	other := openAt(t, path) // a second connection to the file, as another process would have

	t.Run("distinct ids", func(t *testing.T) {
		const n = 64
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				on := l
				if i%2 == 1 {
					on = other
				}
				errs <- on.Reserve(ctx, Entry{ID: "distinct-" + strconv.Itoa(i), Session: "distinct"})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		got, err := l.List(ctx, Filter{Session: "distinct", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Errorf("%d entries, want %d", len(got), n)
		}
	})
	t.Run("same id", func(t *testing.T) {
		const n = 32
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				on := l
				if i%2 == 1 {
					on = other
				}
				errs <- on.Reserve(ctx, Entry{ID: "same", Session: "g" + strconv.Itoa(i)})
			})
		}
		wg.Wait()
		close(errs)
		wins := 0
		for err := range errs {
			var dup *DuplicateError
			switch {
			case err == nil:
				wins++
			case errors.As(err, &dup):
				if dup.Original.ID != "same" || dup.Original.State != wire.OpReserved {
					t.Errorf("duplicate names %+v", dup.Original)
				}
			default:
				t.Error(err)
			}
		}
		if wins != 1 {
			t.Errorf("%d reservations of one id succeeded, want 1", wins)
		}
	})
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()

	missing := filepath.Join(dir, "nope", "ledger.db")
	_, err := Open(ctx, missing)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "directory does not exist") || !strings.Contains(err.Error(), missing) {
		t.Errorf("Open in a missing directory: %v; want an error naming the path and the missing directory", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open created the missing directory (%v)", err)
	}

	notDB := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, notDB); err == nil {
		t.Error("Open took a file that is not a database")
	}

	newer := filepath.Join(dir, "newer.db")
	l := openAt(t, newer)
	l.Close()
	rawExec(t, newer, "PRAGMA user_version = 99")
	if _, err := Open(ctx, newer); err == nil || !strings.Contains(err.Error(), "schema version is 99") {
		t.Errorf("Open of a newer schema: %v, want a refusal naming the version", err)
	}
}

func TestFileSettings(t *testing.T) {
	t.Parallel()
	l, path := newLedger(t, backends[0])
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("ledger file mode %v, want 0600", perm)
	}
	if err := l.Reserve(context.Background(), Entry{ID: "op"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("write-ahead log: %v, %v; want mode 0600", fi, err)
	}
	steps, err := migrations(sqliteSchema, "schema")
	if err != nil {
		t.Fatal(err)
	}
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"synchronous":  map[string]string{"NORMAL": "1", "FULL": "2"}[synchronous],
		"busy_timeout": strconv.FormatInt(busyTimeout.Milliseconds(), 10),
		"user_version": strconv.Itoa(len(steps)),
		"foreign_keys": "1",
	} {
		var got string
		if err := l.Store.(*sqlStore).db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestPathNeedsNoEscaping(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a dir?with#odd%chars")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ledger.db")
	l := openAt(t, path)
	if err := l.Reserve(ctx, Entry{ID: "op"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the ledger is not at the path given: %v", err)
	}
}

// BenchmarkReserveSettle is what the ledger adds to one write: its
// reservation (durable before the write is dispatched) and its settling,
// on each backend (PostgreSQL: the package's server, on loopback).
func BenchmarkReserveSettle(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) { benchmarkReserveSettle(b, be) })
	}
}

func benchmarkReserveSettle(b *testing.B, be backend) {
	ctx := context.Background()
	l, _ := newLedger(b, be)
	var took []time.Duration
	i := 0
	for b.Loop() {
		id := "op-" + strconv.Itoa(i)
		i++
		t0 := time.Now()
		if err := l.Reserve(ctx, Entry{ID: id, Session: "bench", Op: "click", Action: "click", Digest: "0123456789abcdef"}); err != nil {
			b.Fatal(err)
		}
		if err := l.Settle(ctx, id, wire.OpExecuted, "", ""); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(ms(0.5), "median-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// TestAcknowledge: a person acknowledges an unknown outcome once (the
// time of the first stands); it stays unknown. A known outcome and an id
// never reserved are refused.
func TestAcknowledge(t *testing.T) {
	t.Parallel()
	eachBackend(t, testAcknowledge)
}

func testAcknowledge(t *testing.T, b backend) {
	ctx := context.Background()
	l, _ := newLedger(t, b)
	for _, id := range []string{"lost", "done"} {
		if err := l.Reserve(ctx, Entry{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	l.Settle(ctx, "lost", wire.OpUnknown, "OUTCOME_UNKNOWN", "the browser went")
	l.Settle(ctx, "done", wire.OpExecuted, "", "")
	before := time.Now()
	e, err := l.Acknowledge(ctx, "lost")
	if err != nil {
		t.Fatal(err)
	}
	within(t, "acknowledged", e.Acknowledged, before, time.Now())
	if e.State != wire.OpUnknown {
		t.Fatalf("acknowledging changed the state to %s", e.State)
	}
	again, err := l.Acknowledge(ctx, "lost")
	if err != nil || !again.Acknowledged.Equal(e.Acknowledged) {
		t.Fatalf("a second acknowledgement: %v, %v (first %v)", err, again.Acknowledged, e.Acknowledged)
	}
	if list, _ := l.List(ctx, Filter{State: wire.OpUnknown}); len(list) != 1 || list[0].Acknowledged.IsZero() {
		t.Fatalf("List does not show the acknowledgement: %+v", list)
	}
	if _, err := l.Acknowledge(ctx, "done"); !errors.Is(err, ErrNotUnknown) {
		t.Errorf("acknowledging an executed write: %v", err)
	}
	if _, err := l.Acknowledge(ctx, "never"); !errors.Is(err, ErrNotFound) {
		t.Errorf("acknowledging an id never reserved: %v", err)
	}
}

// TestInputKept: a write's input and its target's locator are kept with
// it; an input larger than MaxInput is not.
func TestInputKept(t *testing.T) {
	t.Parallel()
	eachBackend(t, testInputKept)
}

func testInputKept(t *testing.T, b backend) {
	ctx := context.Background()
	l, _ := newLedger(t, b)
	in := `{"ref":"e12","text":"hello"}`
	if err := l.Reserve(ctx, Entry{ID: "small", Input: in, Locator: `role=textbox[name="Name"]`}); err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(ctx, Entry{ID: "large", Input: `{"text":"` + strings.Repeat("x", MaxInput) + `"}`}); err != nil {
		t.Fatal(err)
	}
	e, _ := l.Get(ctx, "small")
	if e.Input != in || e.Locator != `role=textbox[name="Name"]` {
		t.Errorf("kept %q and %q", e.Input, e.Locator)
	}
	if e, _ := l.Get(ctx, "large"); e.Input != "" {
		t.Errorf("a large input was kept (%d bytes)", len(e.Input))
	}
	if list, _ := l.List(ctx, Filter{Task: "nobody"}); len(list) != 0 {
		t.Errorf("a task filter matched %d rows", len(list))
	}
}
