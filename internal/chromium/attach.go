package chromium

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// ResolveEndpoint turns what a user passes to --cdp into a browser websocket
// URL: a ws:// or wss:// URL is used as is; an http(s):// URL (or a bare
// host:port) is asked for /json/version, the endpoint every Chromium and
// Electron app started with --remote-debugging-port serves.
func ResolveEndpoint(ctx context.Context, raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("not a CDP endpoint URL: %q", raw)
	}
	switch u.Scheme {
	case "ws", "wss":
		return u.String(), nil
	case "http", "https":
	default:
		return "", fmt.Errorf("not a CDP endpoint URL: %q (want ws://, http:// or host:port)", raw)
	}
	u.Path = "/json/version"
	u.RawQuery = ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("asking %s for its websocket: %w", u.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s", u, resp.Status)
	}
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.WS == "" {
		return "", fmt.Errorf("%s has no webSocketDebuggerUrl", u)
	}
	// The browser reports the address it listens on, which may not be the
	// one the caller reached it by (a port forward, 0.0.0.0); keep the
	// caller's host.
	ws, err := url.Parse(v.WS)
	if err != nil {
		return "", err
	}
	ws.Host = u.Host
	if u.Scheme == "https" {
		ws.Scheme = "wss"
	}
	return ws.String(), nil
}

// Attach connects to a running browser's DevTools endpoint. Closing the
// returned connection leaves that browser running: loupe did not start it.
func Attach(ctx context.Context, endpoint string) (*cdp.Conn, string, error) {
	ws, err := ResolveEndpoint(ctx, endpoint)
	if err != nil {
		return nil, "", err
	}
	t, err := cdp.DialWebsocket(ctx, ws)
	if err != nil {
		return nil, "", err
	}
	return cdp.NewConn(t), ws, nil
}
