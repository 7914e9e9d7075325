package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Remote runs operations through the daemon, sharing its sessions. A write
// gets its operation id here, before it is sent: when the daemon's reply
// never comes, the agent is told which write's outcome is unknown.
type Remote struct {
	C *client.Client
	Caller
	// Reconnect, when set, brings a daemon back that cannot be reached
	// (the CLI starts one as it does for its own commands); the call is
	// then sent once more: a daemon that could not be reached certainly
	// did not receive it. Without it, or when it fails, the call is
	// DAEMON_UNAVAILABLE, not executed.
	Reconnect func(ctx context.Context) error
	daemon    daemonSeen
}

// daemonSeen is the daemon process that last answered this server.
type daemonSeen struct {
	mu sync.Mutex
	id string
}

// changed records the daemon that answered and reports whether another
// answered before it (the daemon restarted between two calls).
func (d *daemonSeen) changed(id string) bool {
	if id == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	was := d.id
	d.id = id
	return was != "" && was != id
}

// restartNotice tells the agent what a daemon restart between its calls
// changed: ids from before are refused, never reused, and the daemon
// knows this server afresh.
const restartNotice = "the daemon restarted since your last call: tab ids and refs from before are gone (refused, never reused), tabs that were kept came back under new ids, your current tab is the session's first tab again, and a task's grant starts afresh; list the tabs (browser_tabs) and take a snapshot (browser_snapshot) before acting"

// Do runs the operation and decodes its output.
func (r *Remote) Do(ctx context.Context, c Call) (*Reply, error) {
	timeout := c.Op.Timeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	}
	if c.Op.Kind == ops.Write && c.OperationID == "" {
		c.OperationID = apitype.NewOperationID()
	}
	c.TimeoutMS = timeout.Milliseconds()
	send := func() (*apitype.OpResponse, error) { return r.C.Do(ctx, c.Op.Name, r.Envelope(c)) }
	resp, err := send()
	if errors.Is(err, client.ErrNoDaemon) && r.Reconnect != nil {
		if rerr := r.Reconnect(ctx); rerr != nil {
			err = rerr
		} else {
			resp, err = send()
		}
	}
	restarted := r.daemon.changed(r.C.Daemon())
	if err != nil {
		return nil, daemonError(err, restarted)
	}
	r.Granted(resp.Grant)
	out := c.Op.NewOut()
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return nil, fmt.Errorf("mcpserver: decoding %s: %w", c.Op.Name, err)
	}
	reply := &Reply{Out: out, OperationID: resp.OperationID, Report: resp.Report,
		ApprovedAfter: time.Duration(resp.ApprovedAfterMS) * time.Millisecond}
	reply.Notice = resp.Warning
	if restarted {
		reply.Notice = strings.TrimSuffix(restartNotice+"; "+resp.Warning, "; ")
	}
	return reply, nil
}

// daemonError is a Remote call's error as the agent reads it: a daemon
// that cannot be reached is DAEMON_UNAVAILABLE, not executed (the call
// never arrived), and an answer from a daemon that restarted since the
// last call says so first.
func daemonError(err error, restarted bool) error {
	if !errors.Is(err, client.ErrNoDaemon) && !errors.Is(err, errStartDaemon) {
		if e, ok := apitype.As(err); ok && restarted {
			c := *e
			c.Message = restartNotice + ". " + c.Message
			return &c
		}
		return err
	}
	return apitype.Wrap(apitype.DaemonUnavailable, err, "the loupe daemon this server uses is not running, and it could not be started: %v", err).
		Fix("a person can start it on this machine (loupe daemon start) or look at its log (loupe daemon log); then call the tool again")
}

// errStartDaemon marks a Reconnect's failure.
var errStartDaemon = errors.New("starting the daemon")

// StartError is what a Reconnect returns when it could not start the
// daemon.
func StartError(err error) error { return fmt.Errorf("%w: %w", errStartDaemon, err) }
