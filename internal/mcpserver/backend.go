package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Call is one operation call through a Backend: the operation, and the
// request envelope the tool call made — its input as JSON, the write
// report asked for, the write's operation id ("" for a read, or to let
// the executor pick one) and the document token it was planned on. The
// backend fills in the rest of the envelope, which is its own (Caller).
type Call struct {
	Op *ops.Op
	apitype.OpRequest
}

// Reply is a call's typed output (a pointer from ops.Op.NewOut), the
// write's operation id and its report.
type Reply struct {
	Out         any
	OperationID string
	Report      *apitype.Report
	// ApprovedAfter is how long the write waited for a person's approval.
	ApprovedAfter time.Duration
	// Notice is said before the result: what changed under the agent
	// since its last call (the daemon restarted), or that the write's
	// outcome could not be recorded in the ledger.
	Notice string
}

// Backend runs calls for the server's session and client, or returns a
// registry error. Remote (the daemon) and Broker (a broker on another
// machine) are here; the backend that runs an executor in this process is
// on the daemon's side (package mcplocal), so this package links no
// engine.
type Backend interface {
	Do(ctx context.Context, c Call) (*Reply, error)
}

// Caller is the part of every call's envelope that is the server's own,
// not the tool call's: the session, the server's client within it (its
// current tab and snapshots are its own), the task it works as, the grant
// that task was given, and whether the agent may open file: and chrome:
// pages. A backend that sends envelopes (Remote, mcplocal.Local) embeds
// one; it must not be copied once used.
type Caller struct {
	Session string
	Client  string
	Task    string // "": the client's default task
	// LocalPages lets the agent open file: and chrome: pages.
	LocalPages bool

	// grant is the grant id the server's task was given, presented with
	// each call: once the daemon restarts or a person ends the task, the
	// agent's next write is refused (NO_GRANT) rather than run under a
	// grant that is gone, and its next read gets it a new one.
	mu    sync.Mutex
	grant string
}

// Envelope is the request of a call as this caller sends it.
func (c *Caller) Envelope(call Call) apitype.OpRequest {
	req := call.OpRequest
	req.Session, req.Client, req.Task, req.LocalPages = c.Session, c.Client, c.Task, c.LocalPages
	c.mu.Lock()
	req.Grant = c.grant
	c.mu.Unlock()
	return req
}

// Granted keeps the grant a call ran under for the calls after it ("":
// the call ran under none, and the kept one stays).
func (c *Caller) Granted(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.grant = id
	c.mu.Unlock()
}
