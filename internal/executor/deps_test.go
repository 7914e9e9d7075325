package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// TestCallerKeepsItsOwnSurface: each client of a session has its own
// current surface and last snapshots; the handlers see them through
// Deps.Caller, with the executor's stores beside.
func TestCallerKeepsItsOwnSurface(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	c := fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, nil)
	a := x.depsFor(c, &caller{x: x, s: c.sess, c: c.sess.Client("a")})
	b := x.depsFor(c, &caller{x: x, s: c.sess, c: c.sess.Client("b")})
	a.Caller.SetCurrent("s3")
	c.sess.Client("a").Remember("s3", sessions.Snapshot{Text: "- button"})
	if a.Caller.Current() != "s3" || b.Caller.Current() != "" {
		t.Fatalf("current: a %q, b %q", a.Caller.Current(), b.Caller.Current())
	}
	if text, _, ok := a.Caller.LastSnapshot("s3"); !ok || text != "- button" {
		t.Fatalf("a's last snapshot %q %v", text, ok)
	}
	if _, _, ok := b.Caller.LastSnapshot("s3"); ok {
		t.Fatal("b sees a's snapshot")
	}
	if a.Ledger != nil || a.Approvals == nil || a.Grants == nil || a.Control == nil || a.Files == nil || a.Settings == nil {
		t.Fatalf("deps %+v", a)
	}
	if _, err := a.Browsers.Downloads(); err == nil {
		t.Fatal("downloads without a browser")
	}
}
