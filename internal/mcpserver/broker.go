package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/secret"
)

// Broker is the backend of a remote agent's MCP server (loupe mcp
// --broker URL): every call goes over HTTP to the loupe broker on the
// machine whose browser it drives — reached through an SSH reverse
// forward — with the host's bearer token and the remote session's name
// (the Loupe-Session header). The broker runs it through that machine's
// executor: its policy, approvals, grants, take-over and ledger.
//
// A screenshot made there comes back in the reply, and a recording is
// fetched back once it is kept; both are written here, under Relay, so
// the agent reads a path of its own machine. The files an upload or a
// drop names are read here, under Relay, and staged in the request. A connection
// that drops after a write was sent leaves its outcome unknown: the
// agent is told so, with the operation id to read it back by
// (browser_operations), and the write is never sent again.
type Broker struct {
	URL     string        // the broker's base URL, http://127.0.0.1:PORT
	Token   secret.String // the host's bearer token
	Session string        // the remote session, in Loupe-Session
	Relay   string        // where files made on the browser's machine land here
	HTTP    *http.Client  // nil: a client with no overall timeout (calls carry their deadlines)

	mu        sync.Mutex
	fetched   map[string]string // files fetched back: their path there → here
	routeSeen time.Time         // the route file's time when last read (RouteFile)
}

// brokerBody bounds a broker's reply (a screenshot of a full page).
const brokerBody = 64 << 20

func (b *Broker) client() *http.Client {
	if b.HTTP != nil {
		return b.HTTP
	}
	return http.DefaultClient
}

// Offered asks the broker which operations it offers (GET
// /v1/capabilities), by their names.
func (b *Broker) Offered(ctx context.Context) (map[string]bool, error) {
	base := b.base()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/capabilities", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+string(b.Token))
	resp, err := b.client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the broker at %s what it offers: %w", base, err)
	}
	defer resp.Body.Close()
	var caps struct {
		Operations []struct {
			Name string `json:"name"`
		} `json:"operations"`
		Error *apitype.Error `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&caps); err != nil {
		return nil, fmt.Errorf("the broker at %s answered %s: %w", base, resp.Status, err)
	}
	if caps.Error != nil {
		return nil, caps.Error
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the broker at %s answered %s", base, resp.Status)
	}
	out := map[string]bool{}
	for _, o := range caps.Operations {
		out[strings.ReplaceAll(o.Name, ".", " ")] = true
	}
	return out, nil
}

// Do sends the call to the broker and decodes its output.
func (b *Broker) Do(ctx context.Context, c Call) (*Reply, error) {
	if c.Op.Kind == ops.Write && c.OperationID == "" {
		c.OperationID = apitype.NewOperationID()
	}
	c, err := b.stage(c)
	if err != nil {
		return nil, err
	}
	body := c.Input
	if len(body) == 0 {
		body = json.RawMessage("{}")
	}
	// The operation's name in the path: words joined by dots (tab.new).
	u := b.base() + "/v1/browser/" + strings.ReplaceAll(c.Op.Name, " ", ".")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+string(b.Token))
	req.Header.Set("Loupe-Session", b.Session)
	if c.OperationID != "" {
		req.Header.Set("Loupe-Operation-Id", c.OperationID)
	}
	if c.DocumentToken != "" {
		req.Header.Set("Loupe-Document-Token", c.DocumentToken)
	}
	if r := c.Report; r != nil {
		if r.Snapshot {
			req.Header.Set("Loupe-Report", "snapshot")
		} else {
			req.Header.Set("Loupe-Report", "diff")
		}
	}
	resp, err := b.client().Do(req)
	if err != nil {
		return nil, b.dropped(c, err)
	}
	defer resp.Body.Close()
	var r apitype.OpResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, brokerBody)).Decode(&r); err != nil {
		return nil, b.dropped(c, fmt.Errorf("reading the broker's answer (%s): %w", resp.Status, err))
	}
	if r.Error != nil {
		return nil, r.Error
	}
	out := c.Op.NewOut()
	if err := json.Unmarshal(r.Result, out); err != nil {
		return nil, fmt.Errorf("mcpserver: decoding %s from the broker: %w", c.Op.Name, err)
	}
	if s, ok := out.(*ops.ScreenshotOut); ok && len(s.PNG) > 0 {
		if s.Path, err = b.relay(s.PNG, s.Path); err != nil {
			return nil, err
		}
	}
	if rec, ok := out.(*ops.RecordOut); ok && rec.Kept && rec.Path != "" {
		if rec.Path, err = b.fetchBack(ctx, rec.Path); err != nil {
			return nil, err
		}
	}
	if dl, ok := out.(*ops.DownloadsOut); ok && dl.Finished != nil && dl.Finished.State == "completed" && dl.Finished.Path != "" {
		if dl.Finished.Path, err = b.fetchBack(ctx, dl.Finished.Path); err != nil {
			return nil, err
		}
	}
	return &Reply{Out: out, OperationID: r.OperationID, Report: r.Report,
		ApprovedAfter: time.Duration(r.ApprovedAfterMS) * time.Millisecond, Notice: r.Warning}, nil
}

// dropped is the error of a call whose answer never came: a read that
// may simply be asked again, or a write whose outcome is unknown — it
// may have run on the browser's machine — and is never sent again.
func (b *Broker) dropped(c Call, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if c.Op.Kind != ops.Write {
		return apitype.Wrap(apitype.DaemonUnavailable, err, "the broker at %s did not answer: %v", b.base(), err).
			Fix("check the SSH forward to the browser's machine, then call the tool again (a forward that moved to another port: loupe mcp --broker NEW_URL --session " + b.Session + " --reroute)")
	}
	return apitype.Wrap(apitype.OutcomeUnknown, err, "the connection to the broker dropped while %s (operation %s) was under way: it may have run on the browser's machine, so its outcome is unknown and it is not sent again", c.Op.Name, c.OperationID).
		Fix("once the broker answers again, read what happened (browser_operations with operation_id " + c.OperationID + ") and take a snapshot before you write again").Executed()
}

// relay writes a file made on the browser's machine under Relay, named as
// it was there, never over another (filesdir.CreateNew), and returns its
// path here.
func (b *Broker) relay(data []byte, remote string) (string, error) {
	if err := os.MkdirAll(b.Relay, 0o700); err != nil {
		return "", apitype.Wrap(apitype.FileError, err, "the relay directory %s: %v", b.Relay, err)
	}
	name := filepath.Base(remote)
	if name == "." || name == "/" || name == "" {
		name = "screenshot.png"
	}
	p, err := filesdir.CreateNew(b.Relay, name, data, 0o600)
	if err != nil {
		return "", apitype.Wrap(apitype.FileError, err, "writing %s in %s: %v", name, b.Relay, err)
	}
	return p, nil
}
