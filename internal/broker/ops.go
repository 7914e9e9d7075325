package broker

import (
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/internal/ops"
)

// Version is the broker's API version, advertised by GET /v1/capabilities.
// A client checks it and the operation list, never the daemon's build.
const Version = "1"

// withheld are operations an agent may run through MCP but a remote
// agent may not run through the broker, and why: they reach past the
// caller's own tabs (session-wide lists and controls, which see or
// change the person's tabs too) or name files on the daemon's disk that
// the remote front end does not relay. Upload, drop and record are
// offered: a remote session's files are a directory of its own on the
// browser's machine (executor.ConfinedFiles), uploads are staged into it
// from the remote side's files in the request, and a recording made in
// it, or a download of its tabs linked into it, is fetched back (GET
// /v1/files/NAME). Downloads lists and waits for its own tabs' only,
// and the ledger (ops, ops show) shows its own task's operations only —
// how a remote agent reads back a write whose outcome it lost.
var withheld = map[string]string{
	"close":         "closes the whole session, the person's tabs included",
	"console":       "the session's console log, of every tab",
	"network":       "the session's network log, of every tab",
	"dialogs":       "the session's dialogs, of every tab",
	"doctor":        "describes the person's browser",
	"status":        "describes the person's browser and tabs",
	"surfaces":      "lists every surface of the session",
	"windows":       "lists every window of the session",
	"switch":        "selects any surface of the session",
	"switch-window": "selects any window of the session",
	"state save":    "writes a file the remote side does not relay yet",
	"state load":    "reads a file the remote side does not stage yet",
	"preview":       "shows files on the daemon's disk",
}

// carriesFiles are the operations whose request may carry files (staged
// uploads, a drop): their body may be as large as a reply.
var carriesFiles = map[string]bool{"upload": true, "drop": true}

// Offered is the operations the broker runs, by name, generated from the
// registry: those offered to agents as MCP tools (an operation marked
// NoMCP is a person's — take-over, resume, import-cookies, the dashboard,
// the broker's own administration — and attach, which points the
// session at another browser, is one of them), less the tools a server
// offers only when told to (eval: running script in the page is off for
// agents unless the person turns it on, and the broker has no such
// switch yet), less withheld.
func Offered(r *ops.Registry) map[string]*ops.Op {
	out := map[string]*ops.Op{}
	for _, o := range r.All() {
		if o.NoMCP != "" || len(o.Tools) == 0 || withheld[o.Name] != "" || gated(o) {
			continue
		}
		out[o.Name] = o
	}
	return out
}

func gated(o *ops.Op) bool {
	for _, t := range o.Tools {
		if t.Gate != "" {
			return true
		}
	}
	return false
}

// PathName is an operation's name in a URL: words joined by dots
// ("tab new" is /v1/browser/tab.new), as in the local API.
func PathName(op string) string { return strings.ReplaceAll(op, " ", ".") }

// OpInfo is one operation as GET /v1/capabilities advertises it.
type OpInfo struct {
	Name string `json:"name"` // as in the path: tab.new
	Kind string `json:"kind"` // read or write
}

// Capabilities is the body of GET /v1/capabilities.
type Capabilities struct {
	Version    string   `json:"version"`
	Build      string   `json:"build,omitempty"`
	Operations []OpInfo `json:"operations"`
	// SessionHeader is the header every request names its session in.
	SessionHeader string `json:"session_header"`
}

func capabilities(offered map[string]*ops.Op, build string) Capabilities {
	c := Capabilities{Version: Version, Build: build, SessionHeader: HeaderSession, Operations: []OpInfo{}}
	for _, o := range offered {
		c.Operations = append(c.Operations, OpInfo{Name: PathName(o.Name), Kind: o.Kind.String()})
	}
	sort.Slice(c.Operations, func(i, j int) bool { return c.Operations[i].Name < c.Operations[j].Name })
	return c
}
