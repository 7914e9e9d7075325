package executor

import (
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// TestConfineStage: a confined caller reads and writes only in tabs its
// task opened (and their popups): a shared tab (the person's) and
// another task's are NO_GRANT, for reads too; a call that opens a tab
// passes; an unconfined caller, a person's call and operations without
// a browser pass.
func TestConfineStage(t *testing.T) {
	r := grants.New("g1", 0, nil)
	for _, task := range []string{"remote:h1#1/a", "remote:h1#1/b"} {
		if _, err := r.Use("default", task, "", false); err != nil {
			t.Fatal(err)
		}
	}
	r.Own("default", "remote:h1#1/a", "s2")
	r.Own("default", "remote:h1#1/b", "s3")
	person := &fakePage{id: "s1"}
	mine, theirs, popup := &fakePage{id: "s2"}, &fakePage{id: "s3"}, &fakePage{id: "s4", opener: "s2"}
	snapshot, click := describe[nothing]("snapshot", ops.Read), describe[nothing]("click", ops.Write)
	activate := describe[ops.TabIDIn]("tab activate", ops.Write, sessionWide)
	tabNew := describe[ops.TabNewIn]("tab new", ops.Write, sessionWide)
	for _, tc := range []struct {
		name     string
		op       *ops.Op
		in       any
		page     *fakePage
		unconfin bool
		person   bool
		code     apitype.Code
	}{
		{"read in its own tab", snapshot, nil, mine, false, false, ""},
		{"write in its own tab", click, nil, mine, false, false, ""},
		{"in its tab's popup", click, nil, popup, false, false, ""},
		{"read in the person's tab", snapshot, nil, person, false, false, apitype.NoGrant},
		{"write in the person's tab", click, nil, person, false, false, apitype.NoGrant},
		{"in another session's tab", snapshot, nil, theirs, false, false, apitype.NoGrant},
		{"with no tab yet", snapshot, nil, nil, false, false, apitype.NoGrant},
		{"naming the person's tab", activate, &ops.TabIDIn{ID: "s1"}, mine, false, false, apitype.NoGrant},
		{"naming another session's tab", activate, &ops.TabIDIn{ID: "s3"}, mine, false, false, apitype.NoGrant},
		{"capturing the person's tab", describe[ops.CaptureIn]("network start", ops.Read), &ops.CaptureIn{Surface: "s1"}, mine, false, false, apitype.NoGrant},
		{"capturing its own tab", describe[ops.CaptureIn]("network start", ops.Read), &ops.CaptureIn{Surface: "s2"}, person, false, false, ""},
		{"naming its own tab", activate, &ops.TabIDIn{ID: "s2"}, person, false, false, ""},
		{"opening a tab", tabNew, nil, person, false, false, ""},
		{"unconfined", click, nil, person, true, false, ""},
		{"a person's call", click, nil, theirs, false, true, ""},
		{"no browser", describe[nothing]("ops", ops.Read, noBrowser), nil, person, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, tc.in, tc.page, person, mine, theirs, popup)
			c.task, c.req.Confined, c.req.Person = "remote:h1#1/a", !tc.unconfin, tc.person
			_, err := enter(t, confineStage{r}, c)
			e := wantCode(t, err, tc.code)
			if e != nil && !e.NotExecuted {
				t.Fatalf("a refusal must be not executed: %+v", e)
			}
		})
	}
}

// TestConfineStageCutsTabLists: a confined caller's list of the
// session's tabs holds its own tabs only, even before it has one.
func TestConfineStageCutsTabLists(t *testing.T) {
	r := grants.New("g1", 0, nil)
	if _, err := r.Use("default", "remote:h1#1/a", "", false); err != nil {
		t.Fatal(err)
	}
	r.Own("default", "remote:h1#1/a", "s2")
	tabs := ops.Describe[ops.NoIn, ops.TabsOut]("tabs", "tabs", ops.Read, time.Second)
	tabs.SessionWide = true
	c := fakeCall(t, tabs, nil, nil)
	c.task, c.req.Confined = "remote:h1#1/a", true
	leave, err := enter(t, confineStage{r}, c)
	if err != nil || leave == nil {
		t.Fatalf("tabs: %v (leave %v)", err, leave != nil)
	}
	out := &ops.TabsOut{Active: "s1", Tabs: []wire.Tab{{ID: "s1"}, {ID: "s2"}, {ID: "s3"}}}
	leave(&outcome{out: out})
	if len(out.Tabs) != 1 || out.Tabs[0].ID != "s2" || out.Active != "" {
		t.Fatalf("the list: %+v", out)
	}
}

// TestConfineStageCutsTheLedger: a confined caller reads its own task's
// operations: a list keeps them only, and one of another task's is
// refused (NO_GRANT, not executed), not shown.
func TestConfineStageCutsTheLedger(t *testing.T) {
	r := grants.New("g1", 0, nil)
	list := ops.Describe[ops.NoIn, ops.OperationsOut]("ops", "ops", ops.Read, time.Second)
	show := ops.Describe[ops.NoIn, ops.OperationOut]("ops show", "ops show", ops.Read, time.Second)
	for _, op := range []*ops.Op{list, show} {
		op.SessionWide, op.NoBrowser = true, true
	}
	const task = "remote:h1#1/a"
	c := fakeCall(t, list, nil, nil)
	c.task, c.req.Confined = task, true
	leave, err := enter(t, confineStage{r}, c)
	if err != nil || leave == nil {
		t.Fatalf("ops: %v (leave %v)", err, leave != nil)
	}
	out := &ops.OperationsOut{Operations: []wire.Operation{{ID: "op-1", Task: task}, {ID: "op-2", Task: "cli"}, {ID: "op-3", Task: "remote:h1#1/b"}}}
	o := &outcome{out: out}
	leave(o)
	if o.err != nil || len(out.Operations) != 1 || out.Operations[0].ID != "op-1" {
		t.Fatalf("the list: %+v %v", out, o.err)
	}
	for _, tc := range []struct {
		owner string
		code  apitype.Code
	}{{task, ""}, {"cli", apitype.NoGrant}} {
		c := fakeCall(t, show, nil, nil)
		c.task, c.req.Confined = task, true
		leave, err := enter(t, confineStage{r}, c)
		if err != nil || leave == nil {
			t.Fatalf("ops show: %v", err)
		}
		o := &outcome{out: &ops.OperationOut{Operation: wire.Operation{ID: "op-9", Task: tc.owner}}}
		leave(o)
		if tc.code == "" {
			if o.err != nil || o.out == nil {
				t.Fatalf("its own operation: %v", o.err)
			}
			continue
		}
		if o.err == nil || o.err.Code != tc.code || !o.err.NotExecuted || o.out != nil {
			t.Fatalf("another task's operation: out %+v, err %+v", o.out, o.err)
		}
	}
	// Unconfined, the ledger is whole.
	c = fakeCall(t, list, nil, nil)
	c.task = task
	if leave, err := enter(t, confineStage{r}, c); err != nil || leave != nil {
		t.Fatalf("unconfined: %v (leave %v)", err, leave != nil)
	}
}
