// Package client is the typed client of the daemon's local API. The CLI and
// tests use it; it is the only way in.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// Client talks to one daemon socket.
type Client struct {
	Socket string
	Build  string // sent in every request

	hc     *http.Client
	daemon atomic.Value // string: HeaderDaemon of the last answer
}

// Daemon names the daemon process that last answered ("" before the
// first answer): it changes when the daemon restarted.
func (c *Client) Daemon() string {
	s, _ := c.daemon.Load().(string)
	return s
}

// New returns a client for the socket.
func New(socket, build string) *Client {
	c := &Client{Socket: socket, Build: build}
	c.hc = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		DisableCompression: true,
		MaxIdleConns:       1,
	}}
	return c
}

// ErrNoDaemon means nothing is listening on the socket.
var ErrNoDaemon = errors.New("no daemon is running")

// BuildMismatch is returned when the daemon runs another build than the
// client.
type BuildMismatch struct{ Daemon, Client string }

func (e *BuildMismatch) Error() string {
	return fmt.Sprintf("the running daemon is build %s, this loupe is build %s", e.Daemon, e.Client)
}

// send makes one request to the daemon; a daemon that cannot be reached
// at all is ErrNoDaemon (the request certainly did not arrive).
func (c *Client) send(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+apitype.Host+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set(apitype.HeaderBuild, c.Build)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, fmt.Errorf("%w: %v", ErrNoDaemon, err)
		}
		return nil, err
	}
	if d := resp.Header.Get(apitype.HeaderDaemon); d != "" {
		c.daemon.Store(d)
	}
	return resp, nil
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any, checkBuild bool) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	resp, err := c.send(ctx, method, path, rd)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if b := resp.Header.Get(apitype.HeaderBuild); checkBuild && b != "" && c.Build != "" && b != c.Build {
		return &BuildMismatch{Daemon: b, Client: c.Build}
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil
	}
	dec := json.NewDecoder(resp.Body)
	if out == nil {
		return nil
	}
	return dec.Decode(out)
}

// Call runs an operation as the session's CLI client and returns its
// result as JSON. A registry error comes back as *apitype.Error.
func (c *Client) Call(ctx context.Context, op, session string, in any, timeout time.Duration) (json.RawMessage, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(ctx, op, apitype.OpRequest{Session: session, Input: raw, TimeoutMS: timeout.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// Do sends one operation request and returns the reply; a registry error
// comes back as *apitype.Error. A write (a request with an operation id)
// whose reply is lost once it was sent is OUTCOME_UNKNOWN, naming the
// operation: the daemon may have run it. Only a daemon that could not be
// reached at all means it certainly did not run.
func (c *Client) Do(ctx context.Context, op string, req apitype.OpRequest) (*apitype.OpResponse, error) {
	var resp apitype.OpResponse
	if err := c.do(ctx, http.MethodPost, apitype.OpPath(op), req, &resp, true); err != nil {
		var bm *BuildMismatch
		if req.OperationID == "" || errors.Is(err, ErrNoDaemon) || errors.As(err, &bm) {
			return nil, err
		}
		e := apitype.Wrap(apitype.OutcomeUnknown, err, "the connection to the daemon was lost during write %s (%s): %v", req.OperationID, op, err).Executed()
		e.Op, e.OperationID = op, req.OperationID
		return nil, e.Fix("see what the ledger says of it ({1}) and look at the page before doing it again",
			apitype.Step{Op: "ops show", Args: map[string]string{"operation_id": req.OperationID}})
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return &resp, nil
}

// Status asks the daemon for its status.
func (c *Client) Status(ctx context.Context) (*apitype.Status, error) {
	var s apitype.Status
	if err := c.do(ctx, http.MethodGet, apitype.Prefix+"/status", nil, &s, false); err != nil {
		return nil, err
	}
	return &s, nil
}

// probeWindow bounds how long Probe asks again a daemon that drops its
// probes: one that is exiting holds its socket only until its files close.
const probeWindow = 2 * time.Second

// Probe asks the daemon for its status, as Status does, for a caller that
// starts one when none runs. A daemon that is exiting (killed, stopping)
// can still hold its listening socket for a moment after it stopped
// serving — the kernel frees a killed process's memory before it closes
// its files — and the connection is then reset unanswered: that is asked
// again, every 20 ms (nothing signals the socket's closing) for at most
// probeWindow, until a daemon answers or none is there (ErrNoDaemon).
func (c *Client) Probe(ctx context.Context) (*apitype.Status, error) {
	deadline := time.Now().Add(probeWindow)
	for {
		st, err := c.Status(ctx)
		if err == nil || !dropped(err) || time.Now().After(deadline) {
			return st, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// dropped reports whether err says the daemon closed a connection without
// answering it.
func dropped(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Shutdown asks the daemon to stop its sessions and exit.
func (c *Client) Shutdown(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, apitype.Prefix+"/shutdown", nil, nil, false)
}

// Events streams the daemon's events: fn gets each line (one JSON event)
// until ctx ends, fn fails, or the daemon goes (io.EOF). session "" is
// every session's; since >= 0 replays the kept events after that
// sequence number first (0: all kept), since < 0 none.
func (c *Client) Events(ctx context.Context, session string, since int64, fn func(line []byte) error) error {
	q := url.Values{}
	if session != "" {
		q.Set("session", session)
	}
	if since >= 0 {
		q.Set("since", strconv.FormatInt(since, 10))
	}
	resp, err := c.send(ctx, http.MethodGet, apitype.Prefix+"/events?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var r apitype.OpResponse
		if json.NewDecoder(resp.Body).Decode(&r) == nil && r.Error != nil {
			return r.Error
		}
		return fmt.Errorf("events: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if err := fn(sc.Bytes()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return io.EOF
}
