package executor

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/guard"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestDescribeStage: a write is described once, for every stage after
// it: its id (new, or the caller's if well formed), its caller and task,
// the tab it acts on and who opened it, the tab it names, its origin, the
// element it names with its locator, and whether it types a secret.
func TestDescribeStage(t *testing.T) {
	page := &fakePage{id: "s1", url: "https://shop.test/cart", opener: "s0", locators: map[string]string{"e3": `role=textbox[name="Card"]`},
		secrets: map[string]bool{"e4": true}}
	other := &fakePage{id: "s7", opener: "s1"}
	fill := describe[ops.FillIn]("fill", ops.Write)
	for _, tc := range []struct {
		name  string
		op    *ops.Op
		in    any
		id    string
		page  *fakePage
		code  apitype.Code
		check func(w guard.Write) bool
	}{
		{"a fill by ref", fill, &ops.FillIn{Target: "e3", Text: "4242"}, "", page, "", func(w guard.Write) bool {
			return w.ID != "" && w.Op == "fill" && w.Page == "s1" && w.Opener == "s0" && w.Origin == "https://shop.test" &&
				w.Element == "e3" && w.Locator == `role=textbox[name="Card"]` && !w.Secret && w.Digest != ""
		}},
		{"a fill by locator", fill, &ops.FillIn{Target: "#card", Text: "x"}, "", page, "", func(w guard.Write) bool { return w.Locator == "#card" }},
		{"into a password field", fill, &ops.FillIn{Target: "e4", Text: "hunter2"}, "", page, "", func(w guard.Write) bool { return w.Secret }},
		{"the caller's id", fill, &ops.FillIn{Target: "e3"}, "op-mine.1", page, "", func(w guard.Write) bool { return w.ID == "op-mine.1" }},
		{"a bad id", fill, &ops.FillIn{Target: "e3"}, "op mine", page, apitype.BadInput, nil},
		{"no browser yet", describe[ops.OpenIn]("open", ops.Write, as(ops.ActNavigate)), &ops.OpenIn{URL: "https://a.test/x"}, "", nil, "", func(w guard.Write) bool {
			return w.Page == "" && w.Origin == "https://a.test" && w.Locator == ""
		}},
		{"a tab it opens", describe[ops.OpenIn]("open", ops.Write), &ops.OpenIn{URL: "https://a.test/", NewTab: true}, "", page, "", func(w guard.Write) bool {
			return w.SessionWide && w.Origin == "https://a.test"
		}},
		{"a tab it names", describe[ops.TabCloseIn]("tab close", ops.Write, sessionWide), &ops.TabCloseIn{ID: "s7"}, "", page, "", func(w guard.Write) bool {
			return w.Target == "s7" && w.TargetOpener == "s1" && w.SessionWide
		}},
		{"its own tab", describe[ops.TabCloseIn]("tab close", ops.Write, sessionWide), &ops.TabCloseIn{}, "", page, "", func(w guard.Write) bool {
			return w.Target == "s1" && w.TargetOpener == "s0"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeCall(t, tc.op, tc.in, tc.page, other)
			c.req.OperationID = tc.id
			c.grant = "g-1"
			_, err := enter(t, describeStage{}, c)
			wantCode(t, err, tc.code)
			if tc.check != nil && (!tc.check(c.write) || c.write.Task != "cli") {
				t.Fatalf("described %+v", c.write)
			}
		})
	}
	c := fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, page)
	if _, err := enter(t, describeStage{}, c); err != nil || c.write.ID != "" {
		t.Fatalf("a read was described: %+v, %v", c.write, err)
	}
}
