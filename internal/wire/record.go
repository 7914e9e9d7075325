package wire

import (
	"fmt"
	"strings"
)

// RecordOut is a recording's state: running (with how far it got), or how
// it ended and the file it left; neither (Ended "") when the tab has no
// recording.
type RecordOut struct {
	SurfaceID string  `json:"surface_id" cap:"-"`
	Running   bool    `json:"running"`
	ElapsedMS int64   `json:"elapsed_ms"`
	MaxMS     int64   `json:"max_ms,omitempty"`
	Frames    int     `json:"frames"`
	Bytes     int64   `json:"bytes"`
	Path      string  `json:"path,omitempty" cap:"-"` // the published file
	Duration  float64 `json:"duration_s,omitempty"`
	// Ended says why it ended ("stopped", "taken over", "limit: 20s",
	// "tab closed", …); Kept whether the file was published, Why why or
	// why not.
	Ended string `json:"ended,omitempty" cap:"text"`
	Kept  bool   `json:"kept,omitempty"`
	Why   string `json:"why,omitempty" cap:"text"`
}

// Text is one line, and the file on a second.
func (o *RecordOut) Text() string {
	switch {
	case o.Running:
		return fmt.Sprintf("recording %s: %.1fs of at most %.0fs, %d frames, %d bytes", o.SurfaceID, float64(o.ElapsedMS)/1000, float64(o.MaxMS)/1000, o.Frames, o.Bytes)
	}
	if o.Ended == "" {
		return "no recording of " + o.SurfaceID
	}
	var b strings.Builder
	fmt.Fprintf(&b, "recording of %s ended (%s) after %.1fs, %d frames", o.SurfaceID, o.Ended, o.Duration, o.Frames)
	if o.Kept {
		fmt.Fprintf(&b, "\n%s (%d bytes)", o.Path, o.Bytes)
	} else {
		fmt.Fprintf(&b, "\nnot kept: %s", o.Why)
	}
	return b.String()
}
