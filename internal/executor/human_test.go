package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestHumanStage: a crashed tab is TAB_CRASHED, a tab held in a dialog
// flood PAGE_BLOCKED (but may be left), a tab a person holds
// HUMAN_CONTROL for reads and writes alike; operations on the session,
// calls with no browser and the person's own calls pass.
func TestHumanStage(t *testing.T) {
	click, read := describe[nothing]("click", ops.Write), describe[nothing]("snapshot", ops.Read)
	open := describe[nothing]("open", ops.Write, as(ops.ActNavigate))
	for _, tc := range []struct {
		name    string
		op      *ops.Op
		page    *fakePage
		setup   func(c *call)
		code    apitype.Code
		epochOf int64
	}{
		{"no browser", click, nil, nil, "", 0},
		{"an agent's tab", click, &fakePage{id: "s1"}, nil, "", 0},
		{"crashed", read, &fakePage{id: "s1", crashed: true}, nil, apitype.TabCrashed, 0},
		{"blocked, a click", click, &fakePage{id: "s1", blocked: true}, nil, apitype.PageBlocked, 0},
		{"blocked, leaving", open, &fakePage{id: "s1", blocked: true}, nil, "", 0},
		{"taken over, a read", read, &fakePage{id: "s1"}, func(c *call) { c.sess.TakeOver("s1") }, apitype.HumanControl, 1},
		{"taken over, a write", click, &fakePage{id: "s1"}, func(c *call) { c.sess.TakeOver("s1") }, apitype.HumanControl, 1},
		{"another tab taken over", click, &fakePage{id: "s1"}, func(c *call) { c.sess.TakeOver("s2") }, "", 0},
		{"resumed", click, &fakePage{id: "s1"}, func(c *call) { c.sess.TakeOver("s1"); c.sess.Resume("s1") }, "", 0},
		{"crashed over to a person", click, &fakePage{id: "s1"}, func(c *call) { c.sess.CrashedOver("s1") }, apitype.TabCrashed, 1},
		{"the person's own call", click, &fakePage{id: "s1"}, func(c *call) { c.sess.TakeOver("s1"); c.req.Person = true }, "", 0},
		{"on the session", describe[nothing]("tabs", ops.Read, sessionWide), &fakePage{id: "s1", crashed: true}, nil, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, nil, tc.page)
			if tc.setup != nil {
				tc.setup(c)
			}
			_, err := enter(t, humanStage{}, c)
			wantCode(t, err, tc.code)
			if c.epoch != tc.epochOf {
				t.Fatalf("epoch %d, want %d", c.epoch, tc.epochOf)
			}
		})
	}
}
