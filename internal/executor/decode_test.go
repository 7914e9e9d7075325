package executor

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/ops"
)

type pickIn struct {
	N int `json:"n"`
}

func (in *pickIn) Validate() error {
	if in.N < 0 {
		return apitype.Errorf(apitype.BadInput, "n is negative")
	}
	return nil
}

// TestDecodeStage: the operation, session, input (strictly decoded and
// validated), kind, deadline, task and the handler's dependencies.
func TestDecodeStage(t *testing.T) {
	look := ops.Describe[pickIn, nothing]("look", "look", ops.Read, 2*time.Second)
	live := ops.Describe[nothing, nothing]("hands", "hands", ops.Write, time.Second)
	live.Live = true
	noop := handlers.Func(func(context.Context, *handlers.Deps, *pickIn) (*nothing, error) { return &nothing{}, nil })
	checked := ops.Describe[pickIn, nothing]("checked", "checked", ops.Write, time.Second)
	// The handler's own check: 7 is not on this machine; any other n is
	// found there as n+1.
	found := handlers.Checked(noop, func(in *pickIn) error {
		if in.N == 7 {
			return apitype.Errorf(apitype.BadInput, "no 7 here")
		}
		in.N++
		return nil
	})
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent", Registry: ops.NewRegistry(look, live, checked), Handlers: map[string]handlers.Handler{
		"look": noop, "hands": handlers.Func(func(context.Context, *handlers.Deps, *nothing) (*nothing, error) { return &nothing{}, nil }),
		"checked": found,
	}})
	req := func(op string, env apitype.OpRequest) Request { return Request{Op: op, OpRequest: env} }
	for _, tc := range []struct {
		name string
		req  Request
		code apitype.Code
		want func(*call) bool
	}{
		{"unknown operation", Request{Op: "nope"}, apitype.BadInput, nil},
		{"bad session name", req("look", apitype.OpRequest{Session: "../x"}), apitype.BadInput, nil},
		{"unknown field", req("look", apitype.OpRequest{Input: json.RawMessage(`{"m":1}`)}), apitype.BadInput, nil},
		{"fails its rules", req("look", apitype.OpRequest{Input: json.RawMessage(`{"n":-1}`)}), apitype.BadInput, nil},
		{"defaults", req("look", apitype.OpRequest{Input: json.RawMessage(`{"n":3}`)}), "", func(c *call) bool {
			return c.sess.Name() == "default" && c.in.(*pickIn).N == 3 && c.kind == ops.Read && c.timeout == 2*time.Second &&
				c.task == "cli" && c.deps.Task == "cli" && c.deps.Session == "default" && c.page != nil
		}},
		{"caller's choices", req("look", apitype.OpRequest{Session: "work", Client: "mcp-1", TimeoutMS: 60000, Input: json.RawMessage(`{"n":1}`)}), "", func(c *call) bool {
			return c.sess.Name() == "work" && c.client.ID() == "mcp-1" && c.task == "mcp-1" && c.timeout == time.Minute
		}},
		{"fails the handler's check", req("checked", apitype.OpRequest{Input: json.RawMessage(`{"n":7}`)}), apitype.BadInput, nil},
		{"the handler's check fills the input", req("checked", apitype.OpRequest{Input: json.RawMessage(`{"n":1}`)}), "", func(c *call) bool {
			return c.in.(*pickIn).N == 2 && c.kind == ops.Write
		}},
		{"a person's own input runs as a read", Request{Op: "hands"}, "", func(c *call) bool { return c.kind == ops.Read }},
		{"the command line as a task is a client of its own", req("look", apitype.OpRequest{Session: "work", Task: "a1"}), "", func(c *call) bool {
			return c.client != x.sessions.Get("work").Client("") && c.client == x.sessions.Get("work").Client("cli task a1") && c.task == "a1"
		}},
		{"an MCP server with a task keeps its own client", req("look", apitype.OpRequest{Session: "work", Client: "mcp-2", Task: "a1"}), "", func(c *call) bool {
			return c.client.ID() == "mcp-2" && c.task == "a1"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &call{req: tc.req}
			_, err := enter(t, decodeStage{x}, c)
			wantCode(t, err, tc.code)
			if tc.want != nil && !tc.want(c) {
				t.Fatalf("decoded %+v", c)
			}
		})
	}
}
