package executor

import (
	"context"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// decodeStage is the first stage: the operation and its handler, the
// session and the caller, the input checked against the operation's
// rules, the caller's task and the call's deadline. Nothing runs on a
// failure here.
type decodeStage struct{ x *Executor }

func (decodeStage) name() string { return "decode" }

func (s decodeStage) enter(_ context.Context, c *call) (func(*outcome), error) {
	req := c.req
	op, ok := s.x.reg.Lookup(req.Op)
	if !ok {
		return nil, apitype.Errorf(apitype.BadInput, "unknown operation %q", req.Op)
	}
	c.op, c.handler = op, s.x.handlers[op.Name]
	if req.Session == "" {
		req.Session = "default"
	}
	if !apitype.ValidSession(req.Session) {
		return nil, apitype.Errorf(apitype.BadInput, "session name %q: %s", req.Session, apitype.SessionRule)
	}
	in, err := ops.Decode(op, req.Input)
	if err != nil {
		return nil, err
	}
	// What only this machine can tell of the input (a file it names).
	if err := c.handler.Check(in); err != nil {
		return nil, err
	}
	c.in = in
	c.kind = op.KindOf(in)
	if op.Live {
		// A person's own input passes none of a write's stages (see
		// ops.Op.Live): it runs as a read does.
		c.kind = ops.Read
	}
	c.timeout = op.Timeout
	if req.TimeoutMS > 0 {
		c.timeout = time.Duration(req.TimeoutMS) * time.Millisecond
	}
	c.task = req.Task
	if c.task == "" {
		c.task = DefaultTask(req.Client)
	}
	c.sess = s.x.sessions.Get(req.Session)
	c.client = c.sess.Client(clientKey(req))
	cl := &caller{x: s.x, s: c.sess, c: c.client}
	c.deps = s.x.depsFor(c, cl)
	c.livePages(cl)
	return nil, nil
}

// clientKey is the session client a request works as. The command line
// sends no client id, so every shell shares the CLI's current surface;
// one that works as a task (--task, LOUPE_TASK) is a client of its own,
// so that two shells with tasks of their own keep their own current
// surfaces instead of moving each other's (as each MCP server and each
// broker session does). The key cannot be an MCP client's id: it holds a
// space, which neither a task nor a client id the front ends make does.
func clientKey(req Request) string {
	if req.Client == "" && req.Task != "" && !req.Person {
		return "cli task " + req.Task
	}
	return req.Client
}
