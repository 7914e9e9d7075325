package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Route is one route of a tab: what it does with the requests whose URL
// matches its pattern, and how many it has answered.
type Route struct {
	Pattern string `json:"pattern" cap:"url"`
	Action  string `json:"action" cap:"-"` // fulfill, abort, continue
	Status  int    `json:"status,omitempty"`
	// Headers are "Name: value" (a fulfilled answer's, or those set on a
	// request sent on).
	Headers   []string `json:"headers,omitempty" cap:"text"`
	BodyBytes int      `json:"body_bytes,omitempty"`
	// Source is the file the body came from.
	Source string `json:"source,omitempty" cap:"title"`
	Hits   int64  `json:"hits"`
}

// RoutesOut is a tab's route table after route, route clear or routes.
type RoutesOut struct {
	SurfaceID string  `json:"surface_id" cap:"-"`
	Routes    []Route `json:"routes"`
	// Set is the pattern a route call set; Cleared counts what a route
	// clear removed.
	Set     string `json:"set,omitempty" cap:"url"`
	Cleared int    `json:"cleared,omitempty"`
}

// Text says what changed, then one line a route: "**/api/* fulfill 200
// (mock.json, 120 bytes), 3 hits".
func (o *RoutesOut) Text() string {
	var b strings.Builder
	switch {
	case o.Set != "":
		fmt.Fprintf(&b, "routed %s in %s\n", o.Set, o.SurfaceID)
	case o.Cleared > 0:
		fmt.Fprintf(&b, "cleared %d routes of %s\n", o.Cleared, o.SurfaceID)
	}
	if len(o.Routes) == 0 {
		b.WriteString("no routes in " + o.SurfaceID)
		return b.String()
	}
	for _, r := range o.Routes {
		fmt.Fprintf(&b, "%s %s", r.Pattern, r.Action)
		if r.Status != 0 {
			fmt.Fprintf(&b, " %d", r.Status)
		}
		var what []string
		if r.Source != "" {
			what = append(what, r.Source)
		}
		if r.Action == "fulfill" {
			what = append(what, fmt.Sprintf("%d bytes", r.BodyBytes))
		}
		what = append(what, r.Headers...)
		if len(what) > 0 {
			b.WriteString(" (" + strings.Join(what, ", ") + ")")
		}
		fmt.Fprintf(&b, ", %d hits\n", r.Hits)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// CaptureOut is the state of a tab's traffic capture (network start,
// network stop).
type CaptureOut struct {
	SurfaceID string    `json:"surface_id" cap:"-"`
	Capturing bool      `json:"capturing"`
	Since     time.Time `json:"since,omitzero"`
	Requests  int       `json:"requests"`
	// Stopped is set when a stop ended a running capture.
	Stopped bool `json:"stopped,omitempty"`
}

// Text is one line.
func (o *CaptureOut) Text() string {
	switch {
	case o.Capturing:
		return fmt.Sprintf("capturing the traffic of %s since %s (%d requests so far)", o.SurfaceID, o.Since.Format(time.TimeOnly), o.Requests)
	case o.Stopped:
		return "stopped capturing the traffic of " + o.SurfaceID
	}
	return "the traffic of " + o.SurfaceID + " was not being captured"
}

// HARFile says what a HAR file written from a tab's capture holds.
type HARFile struct {
	SurfaceID string    `json:"surface_id" cap:"-"`
	Path      string    `json:"path,omitempty" cap:"-"`
	Since     time.Time `json:"since"`
	Entries   int       `json:"entries"`
	Bodies    int       `json:"bodies"`
	BodyBytes int       `json:"body_bytes"`
	// Dropped counts the requests past the capture's bound, left out;
	// Pending those still without a response.
	Dropped int `json:"dropped,omitempty"`
	Pending int `json:"pending,omitempty"`
	// Data is the HAR itself, when the caller asked for it (the CLI,
	// which writes the file).
	Data json.RawMessage `json:"data,omitempty" cap:"-"`
}

// Text is one line.
func (h *HARFile) Text() string {
	s := fmt.Sprintf("wrote %d requests of %s (%d bodies, %d bytes) captured since %s", h.Entries, h.SurfaceID, h.Bodies, h.BodyBytes, h.Since.Format(time.TimeOnly))
	if h.Path != "" {
		s += " to " + h.Path
	}
	if h.Pending > 0 {
		s += fmt.Sprintf("; %d without a response yet", h.Pending)
	}
	if h.Dropped > 0 {
		s += fmt.Sprintf("; %d more left out (at most 1000 a capture)", h.Dropped)
	}
	return s
}
