package apitype

import "encoding/json"

// The local API is HTTP over the daemon's unix socket. Every route is
// under Prefix; a request carries the client's build in HeaderBuild and the
// daemon answers with its own, so a CLI can tell it is talking to a daemon
// from another build.
const (
	Prefix      = "/v0"
	HeaderBuild = "Loupe-Build"
	// Host is the Host header clients send; the daemon refuses others.
	Host = "loupe"
)

// OpRequest is the body of POST /v0/op/NAME.
type OpRequest struct {
	Session   string          `json:"session,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	TimeoutMS int64           `json:"timeout_ms,omitempty"`
}

// OpResponse is the reply: a result or an error, never both.
type OpResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Status is the reply of GET /v0/status.
type Status struct {
	Build    string        `json:"build"`
	PID      int           `json:"pid"`
	RSSBytes int64         `json:"rss_bytes"`
	Uptime   string        `json:"uptime"`
	Home     string        `json:"home"`
	Sessions []SessionInfo `json:"sessions"`
}

// SessionInfo describes a session with a running browser.
type SessionInfo struct {
	Name     string `json:"name"`
	Browser  string `json:"browser"`
	PID      int    `json:"pid,omitempty"`
	Attached bool   `json:"attached,omitempty"`
	Tabs     int    `json:"tabs"`
}

// OpPath is the route of an operation; spaces in names ("tab new") become
// dots.
func OpPath(op string) string {
	b := []byte(op)
	for i, c := range b {
		if c == ' ' {
			b[i] = '.'
		}
	}
	return Prefix + "/op/" + string(b)
}
