package executor

import (
	"context"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/events"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestGrantStage: a read mints the task's grant, a write presents it; a
// stale grant or an ended task is NO_GRANT with what to do next; a
// person's call and operations without a browser need none.
func TestGrantStage(t *testing.T) {
	r := grants.New("g1", 0, nil)
	read, write := describe[nothing]("snapshot", ops.Read), describe[nothing]("click", ops.Write)
	c := fakeCall(t, read, nil, nil)
	if _, err := enter(t, grantStage{r}, c); err != nil || c.grant == "" {
		t.Fatalf("read: grant %q, %v", c.grant, err)
	}
	minted := c.grant
	w := fakeCall(t, write, nil, nil)
	w.req.Grant = minted
	if _, err := enter(t, grantStage{r}, w); err != nil || w.grant != minted {
		t.Fatalf("write with the grant: %q, %v", w.grant, err)
	}
	w.req.Grant = "g-stale"
	e := wantCode(t, func() error { _, err := enter(t, grantStage{r}, w); return err }(), apitype.NoGrant)
	if !strings.Contains(e.Hint, "snapshot") {
		t.Fatalf("stale grant hint %q", e.Hint)
	}
	r.End("cli")
	w.req.Grant = ""
	e = wantCode(t, func() error { _, err := enter(t, grantStage{r}, w); return err }(), apitype.NoGrant)
	if !strings.Contains(e.Hint, "ended") {
		t.Fatalf("ended task hint %q", e.Hint)
	}
	for _, c := range []*call{fakeCall(t, describe[nothing]("ops", ops.Read, noBrowser), nil, nil), fakeCall(t, write, nil, nil)} {
		c.req.Person = c.op.Name == "click"
		if _, err := enter(t, grantStage{r}, c); err != nil || c.grant != "" {
			t.Fatalf("%s: grant %q, %v", c.op.Name, c.grant, err)
		}
	}
}

// TestOwnerStage: an agent's write in a tab another task owns, or naming
// one, is NO_GRANT; a write on the session passes its tab's owner;
// reads, a person's commands and a person's calls pass.
func TestOwnerStage(t *testing.T) {
	r := grants.New("g1", 0, nil)
	if _, err := r.Use("default", "other", "", false); err != nil { // an owner holds a live grant
		t.Fatal(err)
	}
	r.Own("default", "other", "s2")
	click := describe[nothing]("click", ops.Write)
	closeTab := describe[ops.TabCloseIn]("tab close", ops.Write, sessionWide, as(ops.ActClose))
	for _, tc := range []struct {
		name   string
		op     *ops.Op
		w      guard.Write
		person bool
		code   apitype.Code
	}{
		{"own tab", click, guard.Write{Session: "default", Task: "cli", Page: "s1"}, false, ""},
		{"another task's tab", click, guard.Write{Session: "default", Task: "cli", Page: "s2"}, false, apitype.NoGrant},
		{"its popup", click, guard.Write{Session: "default", Task: "cli", Page: "s3", Opener: "s2"}, false, apitype.NoGrant},
		{"on the session", closeTab, guard.Write{Session: "default", Task: "cli", Page: "s2", SessionWide: true}, false, ""},
		{"naming another task's tab", closeTab, guard.Write{Session: "default", Task: "cli", Page: "s1", SessionWide: true, Target: "s2"}, false, apitype.NoGrant},
		{"the owner itself", click, guard.Write{Session: "default", Task: "other", Page: "s2"}, false, ""},
		{"a person's call", click, guard.Write{Session: "default", Task: "person", Page: "s2"}, true, ""},
		{"a person's command", describe[nothing]("takeover", ops.Write, as(ops.ActControl)), guard.Write{Session: "default", Task: "cli", Page: "s2"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, nil, nil)
			c.write, c.req.Person = tc.w, tc.person
			_, err := enter(t, ownerStage{guard.GrantGate{Grants: r}}, c)
			wantCode(t, err, tc.code)
		})
	}
}

// TestTaskEnd: ending a task revokes its grants, ends its previews and is
// an event.
func TestTaskEnd(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	defer x.Close(context.Background())
	if _, err := x.grants.Use("default", "t1", "", false); err != nil {
		t.Fatal(err)
	}
	sub := x.events.Subscribe(4, -1)
	defer sub.Close()
	ender := taskEnder{x.grants, x.events, x.previews}
	if gs := ender.End("t1"); len(gs) != 1 || gs[0].Task != "t1" {
		t.Fatalf("revoked %+v", gs)
	}
	<-sub.Ready()
	if evs := sub.Next(); len(evs) != 1 || evs[0].Kind != events.TaskEnded || evs[0].Task != "t1" {
		t.Fatalf("events %+v", evs)
	}
}
