package mcpserver

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// RouteFile is where a remote session's route is written: the broker's
// address that loupe mcp --broker URL --session NAME --reroute points a
// running front end to after the person rotated the SSH forward (the
// forward's port on this machine changed). The front end reads it before
// each call, so it needs no restart and no listener of its own.
func RouteFile(relay string) string { return filepath.Join(relay, ".route") }

// CheckBrokerURL checks a broker address: http(s), a loopback host (the
// broker is reached through a forwarded port on this machine), no path.
func CheckBrokerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return fmt.Errorf("%q: want the broker's address, http://127.0.0.1:PORT", s)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q: the broker is reached through a forwarded port on this machine, a loopback address (127.0.0.1)", s)
	}
	return nil
}

// WriteRoute points the front end of the session whose relay directory
// this is at url, atomically (a front end reading meanwhile sees the old
// route or the new, never half of one).
func WriteRoute(relay, url string) error {
	if err := CheckBrokerURL(url); err != nil {
		return err
	}
	if err := os.MkdirAll(relay, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(relay, ".route-*")
	if err != nil {
		return err
	}
	_, werr := tmp.WriteString(url + "\n")
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), RouteFile(relay))
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// base is the broker's address for the next call: the route file's when
// one was written since the front end started (or since it last read
// it), else URL. A route file that is not a valid address is ignored, so
// a bad write never cuts the agent off; --reroute checks it before
// writing anyway.
func (b *Broker) base() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Relay != "" {
		if fi, err := os.Stat(RouteFile(b.Relay)); err == nil && !fi.ModTime().Equal(b.routeSeen) {
			b.routeSeen = fi.ModTime()
			if data, err := os.ReadFile(RouteFile(b.Relay)); err == nil {
				if u := string(bytes.TrimSpace(data)); CheckBrokerURL(u) == nil {
					b.URL = u
				}
			}
		}
	}
	return strings.TrimSuffix(b.URL, "/")
}
