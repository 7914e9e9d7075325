package grants

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newReg(ttl time.Duration) (*Registry, *clock) {
	c := &clock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	return New("gen1", ttl, c.now), c
}

func refused(t *testing.T, err error, want string) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if !strings.Contains(r.Why, want) {
		t.Fatalf("why = %q, want it to say %q", r.Why, want)
	}
	return r
}

func TestMintedOnFirstUseAndKept(t *testing.T) {
	r, _ := newReg(0)
	g, err := r.Use("default", "a", "", false)
	if err != nil || g.ID == "" || g.Generation != "gen1" || g.Task != "a" {
		t.Fatalf("Use = %+v, %v", g, err)
	}
	g2, err := r.Use("default", "a", g.ID, true)
	if err != nil || g2.ID != g.ID {
		t.Fatalf("second Use = %+v, %v; want the same grant", g2, err)
	}
	other, _ := r.Use("default", "b", "", true)
	if other.ID == g.ID {
		t.Fatal("two tasks share a grant")
	}
}

func TestStalePresentedGrant(t *testing.T) {
	r, _ := newReg(0)
	// A grant id from an earlier daemon: refused on a write...
	_, err := r.Use("default", "a", "g-old", true)
	refused(t, err, "not current")
	// ...replaced on a read.
	g, err := r.Use("default", "a", "g-old", false)
	if err != nil || g.ID == "g-old" || g.ID == "" {
		t.Fatalf("read with a stale grant = %+v, %v; want a new grant", g, err)
	}
}

func TestExpiry(t *testing.T) {
	r, c := newReg(time.Hour)
	g, _ := r.Use("default", "a", "", true)
	c.t = c.t.Add(time.Hour)
	_, err := r.Use("default", "a", g.ID, true)
	refused(t, err, "expired")
	// Said once: the same id is still refused, by its revocation...
	_, err = r.Use("default", "a", g.ID, true)
	refused(t, err, "expired")
	// ...and a caller that keeps no id gets a new grant.
	g2, err := r.Use("default", "a", "", true)
	if err != nil || g2.ID == g.ID {
		t.Fatalf("after expiry = %+v, %v", g2, err)
	}
}

func TestEndRevokesAndReleases(t *testing.T) {
	r, _ := newReg(0)
	g, _ := r.Use("default", "a", "", true)
	r.Own("default", "a", "s1")
	if _, err := r.Use("default", "b", "", true); err != nil {
		t.Fatal(err)
	}
	refused(t, r.Check("default", "b", "s1", ""), `belongs to task "a"`)
	if err := r.Check("default", "a", "s1", ""); err != nil {
		t.Fatalf("the owner's own check: %v", err)
	}
	r.Use("other", "a", "", true)
	if ended := r.End("a"); len(ended) != 2 || ended[0].Session != "default" || ended[1].Session != "other" {
		t.Fatalf("End = %+v, want the grants of both sessions", ended)
	}
	_, err := r.Use("default", "a", g.ID, true)
	refused(t, err, "ended at")
	_, err = r.Use("default", "a", "", true)
	refused(t, err, "ended")
	// An ended task may still read, holding no grant.
	if g, err := r.Use("default", "a", "", false); err != nil || g.ID != "" {
		t.Fatalf("read of an ended task = %+v, %v", g, err)
	}
	// Its tab is shared again.
	if err := r.Check("default", "b", "s1", ""); err != nil {
		t.Fatalf("check after end: %v", err)
	}
	if o := r.Owner("default", "s1"); o != "" {
		t.Fatalf("owner = %q", o)
	}
}

func TestPopupBelongsToOpenersTask(t *testing.T) {
	r, _ := newReg(0)
	r.Use("default", "a", "", true)
	r.Use("default", "b", "", true)
	r.Own("default", "a", "s1")
	// A tab nobody opened is shared.
	if err := r.Check("default", "b", "s2", ""); err != nil {
		t.Fatalf("shared tab: %v", err)
	}
	refused(t, r.Check("default", "b", "s4", "s1"), `belongs to task "a"`)
	if o := r.Owner("default", "s4"); o != "a" {
		t.Fatalf("popup owner = %q, want a", o)
	}
	if err := r.Check("default", "a", "s4", "s1"); err != nil {
		t.Fatal(err)
	}
	g, _ := r.Use("default", "a", "", true)
	if strings.Join(g.Tabs, ",") != "s1,s4" {
		t.Fatalf("tabs = %v", g.Tabs)
	}
}

func TestSessionsApart(t *testing.T) {
	r, _ := newReg(0)
	r.Use("one", "a", "", true)
	r.Use("two", "b", "", true)
	r.Own("one", "a", "s1")
	if err := r.Check("two", "b", "s1", ""); err != nil {
		t.Fatalf("a tab id of another session: %v", err)
	}
	r.ForgetSession("one")
	if o := r.Owner("one", "s1"); o != "" {
		t.Fatalf("owner after ForgetSession = %q", o)
	}
}

// TestClaimAfterRestart: a tab restored for a task is that task's before
// it has a grant in this daemon — refused to others, its own when it
// comes back — and shared again once the claim lapses or the task ends.
func TestClaimAfterRestart(t *testing.T) {
	r, c := newReg(time.Hour)
	r.Claim("default", "a", "s2")
	r.Claim("default", "a", "s3")
	r.Claim("default", "", "s4") // a shared tab stays shared
	if o := r.Owner("default", "s2"); o != "a" {
		t.Fatalf("owner of a claimed tab = %q, want a", o)
	}
	r.Use("default", "b", "", true)
	refused(t, r.Check("default", "b", "s2", ""), `belongs to task "a"`)
	if err := r.Check("default", "b", "s4", ""); err != nil {
		t.Fatalf("a shared restored tab: %v", err)
	}
	// A popup of a claimed tab is the claiming task's too.
	refused(t, r.Check("default", "b", "s9", "s2"), `belongs to task "a"`)
	// The task comes back: its grant lists the tabs, and they hold past
	// the claim's life.
	g, _ := r.Use("default", "a", "", true)
	if len(g.Tabs) != 3 { // s2, s3 and the popup s9
		t.Fatalf("the returning task's grant lists %v", g.Tabs)
	}
	c.t = c.t.Add(50 * time.Minute)
	r.Use("default", "a", g.ID, true) // renewed use; the grant lives an hour from its minting
	if err := r.Check("default", "a", "s2", ""); err != nil {
		t.Fatal(err)
	}
	// A claim whose task never comes back lapses after a grant's life.
	r.Claim("default", "gone", "s5")
	refused(t, r.Check("default", "b", "s5", ""), `belongs to task "gone"`)
	c.t = c.t.Add(time.Hour)
	if err := r.Check("default", "b", "s5", ""); err != nil {
		t.Fatalf("a lapsed claim still holds: %v", err)
	}
	// An ended task's claims end with it.
	r.Claim("default", "stopped", "s6")
	r.End("stopped")
	if o := r.Owner("default", "s6"); o != "" {
		t.Fatalf("owner after end = %q", o)
	}
}

// TestEndWhere: a family of tasks ended together stays ended, those
// that had not asked for a grant yet included; other tasks go on.
func TestEndWhere(t *testing.T) {
	r := New("g1", 0, nil)
	old := func(task string) bool { return strings.HasPrefix(task, "remote:h1#1/") }
	if _, err := r.Use("default", "remote:h1#1/a", "", false); err != nil {
		t.Fatal(err)
	}
	r.Own("default", "remote:h1#1/a", "s2")
	if got := r.EndWhere(old); len(got) != 1 || got[0].Task != "remote:h1#1/a" || len(got[0].Tabs) != 1 {
		t.Fatalf("ended: %+v", got)
	}
	if r.Owner("default", "s2") != "" {
		t.Fatal("an ended task still owns its tab")
	}
	for _, task := range []string{"remote:h1#1/a", "remote:h1#1/new"} {
		if _, err := r.Use("default", task, "", true); err == nil {
			t.Fatalf("%s: a write of an ended family was let through", task)
		}
	}
	if _, err := r.Use("default", "remote:h1#2/a", "", true); err != nil {
		t.Fatalf("the next generation: %v", err)
	}
}
