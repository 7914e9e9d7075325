package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/loupe-dev/loupe/internal/wire"
)

// TestRecoverKilled kills a process right after its Reserve returned: the
// row must be on disk, and the next Open makes it unknown.
func TestRecoverKilled(t *testing.T) {
	t.Parallel()
	eachBackend(t, testRecoverKilled)
}

func testRecoverKilled(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	cmd, gen := startChild(t, path, "op-killed")
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()

	l := openAt(t, path)
	if n := l.Recovered(); n != 1 {
		t.Errorf("Recovered = %d, want 1", n)
	}
	e, err := l.Get(ctx, "op-killed")
	if err != nil {
		t.Fatalf("the reservation did not survive kill -9: %v", err)
	}
	wantReason := fmt.Sprintf("loupe (pid %d) stopped before this write was settled", cmd.Process.Pid)
	if e.State != wire.OpUnknown || e.Code != "OUTCOME_UNKNOWN" || e.Reason != wantReason || e.Generation != gen || e.Settled.IsZero() {
		t.Errorf("got %+v, want unknown, OUTCOME_UNKNOWN, %q, generation %d", e, wantReason, gen)
	}
	var dup *DuplicateError
	if err := l.Reserve(ctx, Entry{ID: "op-killed"}); !errors.As(err, &dup) || dup.Original.State != wire.OpUnknown {
		t.Errorf("reusing the killed process's id: %v, want a duplicate of an unknown operation", err)
	}
}

// TestLiveOtherProcess: a process that still runs keeps its reservations;
// once it exits (a zombie, not yet reaped, counts as exited) they are
// recovered.
func TestLiveOtherProcess(t *testing.T) {
	t.Parallel()
	eachBackend(t, testLiveOtherProcess)
}

func testLiveOtherProcess(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	cmd, _ := startChild(t, path, "op-live")

	l := openAt(t, path)
	if n := l.Recovered(); n != 0 {
		t.Errorf("Recovered = %d with the owner alive, want 0", n)
	}
	if e, _ := l.Get(ctx, "op-live"); e.State != wire.OpReserved {
		t.Errorf("a live process's entry became %s (%s)", e.State, e.Reason)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = openAt(t, path)
	if e, _ := l.Get(ctx, "op-live"); e.State != wire.OpReserved {
		t.Errorf("another generation's Close made a live process's entry %s", e.State)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l = openAt(t, path)
	if n, err := l.Recover(ctx); n != 0 || err != nil {
		t.Errorf("Recover with the owner alive = %d, %v; want 0", n, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Wait until it has exited, leaving it unreaped (a zombie).
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Recover(ctx); n != 1 || err != nil {
		t.Errorf("Recover after the owner exited = %d, %v; want 1", n, err)
	}
	if e, _ := l.Get(ctx, "op-live"); e.State != wire.OpUnknown || e.Code != "OUTCOME_UNKNOWN" {
		t.Errorf("the exited process's entry is %s %s, want unknown", e.State, e.Code)
	}
	if n, err := l.Recover(ctx); n != 0 || err != nil {
		t.Errorf("Recover again = %d, %v; want 0", n, err)
	}
}

// TestRecoverAtOpenZombie: Open itself takes an exited, unreaped owner for
// stopped.
func TestRecoverAtOpenZombie(t *testing.T) {
	t.Parallel()
	eachBackend(t, testRecoverAtOpenZombie)
}

func testRecoverAtOpenZombie(t *testing.T, b backend) {
	ctx := context.Background()
	path := b.target(t)
	cmd, _ := startChild(t, path, "op-zombie")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	l := openAt(t, path)
	if n := l.Recovered(); n != 1 {
		t.Errorf("Recovered = %d after the owner exited, want 1", n)
	}
	if e, _ := l.Get(ctx, "op-zombie"); e.State != wire.OpUnknown {
		t.Errorf("the exited process's entry is %s, want unknown", e.State)
	}
}

// TestOwnerIdentity: a generation is the process's only while pid, start
// time and boot all match.
func TestOwnerIdentity(t *testing.T) {
	t.Parallel()
	eachBackend(t, testOwnerIdentity)
}

func testOwnerIdentity(t *testing.T, b backend) {
	for _, tc := range []struct {
		name   string
		change string // applied to the first generation's row
		want   wire.OpState
	}{
		{"same process", ``, wire.OpReserved},
		{"pid reused by another process", `UPDATE generations SET start_ticks = start_ticks + 1 WHERE id = ?`, wire.OpUnknown},
		{"another boot", `UPDATE generations SET boot_id = 'another-boot' WHERE id = ?`, wire.OpUnknown},
		{"pid gone", `UPDATE generations SET pid = ` + strconv.Itoa(exitedPID(t)) + ` WHERE id = ?`, wire.OpUnknown},
		{"pid never a process", `UPDATE generations SET pid = 0 WHERE id = ?`, wire.OpUnknown},
		// Close settles what it leaves in the same transaction; a closed
		// generation with a reserved entry is one that broke that rule.
		{"generation closed", `UPDATE generations SET closed = 1 WHERE id = ?`, wire.OpUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			path := b.target(t)
			first := openAt(t, path)
			if err := first.Reserve(ctx, Entry{ID: "op"}); err != nil {
				t.Fatal(err)
			}
			if tc.change != "" {
				rawExec(t, path, tc.change, first.Generation())
			}
			second := openAt(t, path)
			e, err := second.Get(ctx, "op")
			if err != nil {
				t.Fatal(err)
			}
			if e.State != tc.want {
				t.Errorf("state %s (%s), want %s", e.State, e.Reason, tc.want)
			}
			if want := map[wire.OpState]int{wire.OpReserved: 0, wire.OpUnknown: 1}[tc.want]; second.Recovered() != want {
				t.Errorf("Recovered = %d, want %d", second.Recovered(), want)
			}
			if tc.want == wire.OpUnknown {
				if err := first.Settle(ctx, "op", wire.OpExecuted, "", ""); !errors.Is(err, ErrSettled) {
					t.Errorf("settling a recovered entry: %v, want ErrSettled", err)
				}
			}
		})
	}
}

// exitedPID is the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}
