package wire

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// SessionOut describes a session (close, attach).
type SessionOut struct {
	Session  string `json:"session" cap:"-"`
	Browser  string `json:"browser,omitempty" cap:"title"`
	Attached bool   `json:"attached,omitempty"`
	Closed   bool   `json:"closed,omitempty"`
	Active   string `json:"active,omitempty" cap:"-"`
}

// Text is one line.
func (o *SessionOut) Text() string {
	switch {
	case o.Closed:
		return "closed session " + o.Session
	case o.Attached:
		return fmt.Sprintf("session %s attached to %s (active tab %s)", o.Session, o.Browser, o.Active)
	}
	return fmt.Sprintf("session %s: %s", o.Session, o.Browser)
}

// DoctorOut is the capability matrix of the session's browser connection.
type DoctorOut struct {
	Session   string `json:"session" cap:"-"`
	Browser   string `json:"browser" cap:"title"`
	Version   string `json:"version" cap:"title"`
	Transport string `json:"transport" cap:"-"` // pipe (loupe launched it) or websocket (attached)
	Endpoint  string `json:"endpoint,omitempty" cap:"url"`
	PID       int    `json:"pid,omitempty"`
	// Binary is the executable loupe launched (empty when attached):
	// Chromium's headless shell or the full browser, which report the
	// same name and version.
	Binary   string `json:"binary,omitempty" cap:"-"`
	Electron bool   `json:"electron"`
	// Features says which features this connection supports.
	Features map[string]bool `json:"features"`
	// Unverified names features loupe implements for this connection but
	// has not proven on it (false in Features): surface targeting in an
	// Electron app, until a real one has passed the fixtures.
	Unverified []string `json:"unverified,omitempty" cap:"-"`
}

// Text is the browser line, then one line a feature.
func (o *DoctorOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "browser    %s %s\ntransport  %s", o.Browser, o.Version, o.Transport)
	if o.Endpoint != "" {
		b.WriteString(" " + o.Endpoint)
	}
	if o.PID != 0 {
		fmt.Fprintf(&b, " (pid %d)", o.PID)
	}
	if o.Binary != "" {
		b.WriteString("\nbinary     " + o.Binary)
	}
	names := make([]string, 0, len(o.Features))
	for k := range o.Features {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		mark := "no"
		switch {
		case o.Features[k]:
			mark = "yes"
		case slices.Contains(o.Unverified, k):
			mark = "unverified"
		}
		fmt.Fprintf(&b, "\n%-26s %s", k, mark)
	}
	return b.String()
}
