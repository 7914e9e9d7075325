package grid

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// ErrNoSlot is in the chain of an error that says the Grid had no free
// slot for the request: its queue timed the request out, or the caller's
// deadline ran out while every slot was taken.
var ErrNoSlot = errors.New("no free slot on the Grid")

// ErrNoCDP is in the chain of an error that says the Grid gave a browser
// but no CDP endpoint for it (se:cdp): a Grid started with --enable-cdp
// false, or a plain WebDriver server.
var ErrNoCDP = errors.New("the Grid gave no CDP endpoint (se:cdp)")

// Error is a WebDriver error the Grid answered with: its error code and
// its own message, cut to the first line (the Grid appends host, build
// and driver details on the lines after it).
type Error struct {
	Status  int    // the HTTP status
	Code    string // WebDriver's error code: "session not created", "invalid argument", …
	Message string
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// Is makes errors.Is(err, ErrNoSlot) true for the Grid's own "no free
// slot" answer: its queue gave up on the request ("session not created …
// New session request timed out", or "… Timed out creating session" when
// the queue's periodic reaper gets to the request before its waiting
// thread does).
func (e *Error) Is(target error) bool {
	return target == ErrNoSlot && e.Code == "session not created" && strings.Contains(strings.ToLower(e.Message), "timed out")
}

// gone reports whether the error says the WebDriver session no longer
// exists: its browser closed the connection, or the Grid never knew it.
func (e *Error) gone() bool { return e.Code == "invalid session id" }

// maxMessage bounds the Grid message an error carries.
const maxMessage = 500

// parseError reads a WebDriver error reply: {"value":{"error","message"}}.
// A body that is not one (a proxy's HTML page) is said by its status and
// its first line.
func parseError(status int, body []byte) *Error {
	var r struct {
		Value struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		} `json:"value"`
	}
	if json.Unmarshal(body, &r) == nil && r.Value.Error != "" {
		e := &Error{Status: status, Code: firstLine(r.Value.Error), Message: firstLine(r.Value.Message)}
		if e.Message == "" {
			e.Message = "(the Grid gave no message)"
		}
		return e
	}
	msg := firstLine(string(body))
	if msg == "" {
		msg = "(empty reply)"
	}
	return &Error{Status: status, Message: fmt.Sprintf("HTTP %d: %s", status, msg)}
}

// firstLine is s up to its first line break, trimmed and bounded.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(s)
	if len(s) > maxMessage {
		n := maxMessage
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// created is what New Session's reply says of the browser.
type created struct {
	ID         string
	CDP        string // se:cdp, as the Grid reported it
	CDPVersion string
	Browser    string // browserName and browserVersion
	ProcessID  int    // goog:processID, on the node
}

// parseCreated reads New Session's reply: {"value":{"sessionId",
// "capabilities":{…}}}. It needs a session id; se:cdp may be missing
// (the caller then ends the session: loupe cannot drive it).
func parseCreated(body []byte) (created, error) {
	var r struct {
		Value struct {
			SessionID    string `json:"sessionId"`
			Capabilities struct {
				BrowserName    string `json:"browserName"`
				BrowserVersion string `json:"browserVersion"`
				CDP            string `json:"se:cdp"`
				CDPVersion     string `json:"se:cdpVersion"`
				ProcessID      int    `json:"goog:processID"`
			} `json:"capabilities"`
		} `json:"value"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return created{}, fmt.Errorf("the Grid's new-session reply is not WebDriver JSON: %w", err)
	}
	v := r.Value
	if v.SessionID == "" {
		return created{}, errors.New("the Grid's new-session reply has no sessionId")
	}
	c := v.Capabilities
	return created{ID: v.SessionID, CDP: c.CDP, CDPVersion: c.CDPVersion,
		Browser: strings.TrimSpace(c.BrowserName + " " + c.BrowserVersion), ProcessID: c.ProcessID}, nil
}

// cdpEndpoint is the websocket loupe dials for a session's se:cdp: its
// path as the Grid reported it, on the host and port the Grid was
// reached by. A Grid reports the address it thinks it has (its own IP
// on the LAN, a container's address, 127.0.0.1 when started with --host
// 127.0.0.1), which need not be reachable from here; the Grid's router
// serves /session/ID/se/cdp on the address the client already reached.
func cdpEndpoint(base *url.URL, reported string) (string, error) {
	if reported == "" {
		return "", ErrNoCDP
	}
	u, err := url.Parse(reported)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || !strings.Contains(u.Path, "/se/cdp") {
		return "", fmt.Errorf("%w: the Grid reported %q, not a ws:// URL of a session's se/cdp", ErrNoCDP, reported)
	}
	u.Scheme = "ws"
	if base.Scheme == "https" {
		u.Scheme = "wss"
	}
	u.Host, u.User = base.Host, nil
	return u.String(), nil
}

// Status is the Grid's /status: whether it takes new sessions, and its
// nodes with their slots.
type Status struct {
	Ready   bool
	Message string
	Nodes   []Node
}

// Node is one node of the Grid and its slots.
type Node struct {
	ID           string
	URI          string
	Availability string // UP, DRAINING, DOWN
	Slots        int
	Sessions     []string // the WebDriver sessions in its slots
}

// Free is the number of slots that take a new session now: those of the
// nodes that are up and have no session.
func (s *Status) Free() int {
	n := 0
	for _, nd := range s.Nodes {
		if nd.Availability == "UP" {
			n += nd.Slots - len(nd.Sessions)
		}
	}
	return n
}

// Used is the number of slots that hold a session.
func (s *Status) Used() int {
	n := 0
	for _, nd := range s.Nodes {
		n += len(nd.Sessions)
	}
	return n
}

// NodeOf is the URI of the node that runs a WebDriver session ("" when
// no node lists it).
func (s *Status) NodeOf(id string) string {
	for _, nd := range s.Nodes {
		for _, sid := range nd.Sessions {
			if sid == id {
				return nd.URI
			}
		}
	}
	return ""
}

// parseStatus reads the Grid's /status. A standalone server, a hub and a
// router all answer {"value":{"ready","message","nodes":[…]}}; a bare
// driver answers without nodes.
func parseStatus(body []byte) (*Status, error) {
	var r struct {
		Value struct {
			Ready   bool   `json:"ready"`
			Message string `json:"message"`
			Nodes   []struct {
				ID           string `json:"id"`
				URI          string `json:"uri"`
				Availability string `json:"availability"`
				Slots        []struct {
					Session *struct {
						SessionID string `json:"sessionId"`
					} `json:"session"`
				} `json:"slots"`
			} `json:"nodes"`
		} `json:"value"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("the Grid's /status is not WebDriver JSON: %w", err)
	}
	st := &Status{Ready: r.Value.Ready, Message: firstLine(r.Value.Message)}
	for _, n := range r.Value.Nodes {
		nd := Node{ID: n.ID, URI: n.URI, Availability: n.Availability, Slots: len(n.Slots)}
		for _, sl := range n.Slots {
			if sl.Session != nil && sl.Session.SessionID != "" {
				nd.Sessions = append(nd.Sessions, sl.Session.SessionID)
			}
		}
		st.Nodes = append(st.Nodes, nd)
	}
	return st, nil
}
