package ledger

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/wire"
)

// TestForgetHost: a person's word that host A is gone makes what A left
// reserved unknown (newest first, with the reason), closes A's
// generations, and touches neither A's settled rows nor host B's
// reserved ones; a second word finds nothing; the ledger's own host is
// refused; A, running after all, cannot settle a forgotten row. On both
// backends.
func TestForgetHost(t *testing.T) {
	eachBackend(t, func(t *testing.T, be backend) {
		ctx := context.Background()
		target := be.target(t)
		a, b := openAs(t, target, hostA), openAs(t, target, hostB)
		for _, id := range []string{"a-1", "a-2", "a-done"} {
			if err := a.Reserve(ctx, Entry{ID: id, Session: "work", Op: "click", Action: "click"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Settle(ctx, "a-done", wire.OpExecuted, "", ""); err != nil {
			t.Fatal(err)
		}
		if err := b.Reserve(ctx, Entry{ID: "b-1", Session: "work", Op: "click", Action: "click"}); err != nil {
			t.Fatal(err)
		}

		if _, err := b.ForgetHost(ctx, hostB); !errors.Is(err, ErrOwnHost) {
			t.Errorf("forgetting the ledger's own host: %v, want ErrOwnHost", err)
		}
		got, err := b.ForgetHost(ctx, hostA)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != "a-2" || got[1].ID != "a-1" {
			t.Fatalf("forgetting host A made %+v unknown, want a-2 then a-1", got)
		}
		for _, e := range got {
			if e.State != wire.OpUnknown || e.Host != hostA || !strings.Contains(e.Reason, "host "+hostA+" was declared gone") || e.Settled.IsZero() {
				t.Errorf("a forgotten write: %+v", e)
			}
		}
		if e, _ := b.Get(ctx, "a-done"); e.State != wire.OpExecuted {
			t.Errorf("host A's executed write became %s", e.State)
		}
		if e, _ := b.Get(ctx, "b-1"); e.State != wire.OpReserved {
			t.Errorf("host B's own reserved write became %s", e.State)
		}
		if again, err := b.ForgetHost(ctx, hostA); err != nil || len(again) != 0 {
			t.Errorf("forgetting host A again: %+v, %v; want nothing", again, err)
		}
		if err := a.Settle(ctx, "a-1", wire.OpExecuted, "", ""); !errors.Is(err, ErrSettled) {
			t.Errorf("host A settling a forgotten write: %v, want ErrSettled", err)
		}
		if e, _ := a.Get(ctx, "a-1"); e.State != wire.OpUnknown {
			t.Errorf("after host A's late settle the write is %s, want unknown", e.State)
		}
		if got, err := b.ForgetHost(ctx, "never-seen"); err != nil || len(got) != 0 {
			t.Errorf("forgetting a host the ledger never knew: %+v, %v", got, err)
		}
	})
}
