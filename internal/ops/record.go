package ops

import (
	"slices"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/wire"
)

// RecordIn is the input of record: start, stop or ask about a WebM
// recording of a tab (see package engine/record).
type RecordIn struct {
	Action  string `json:"action" arg:"ACTION" enum:"start,stop,status" help:"start, stop or status"`
	Max     Millis `json:"max_ms,omitempty" flag:"max" meta:"DURATION" help:"start: stop by itself after this long (default 20s, at most 90s)" mcphelp:"start: stop by itself after this many milliseconds (default 20000, at most 90000)"`
	Surface string `json:"surface_id,omitempty" flag:"surface" meta:"ID" help:"the tab to record (default: your current one)"`
}

// recordActions are RecordIn's actions.
var recordActions = []string{"start", "stop", "status"}

// MaxRecording is the longest a recording runs.
const MaxRecording = 90 * time.Second

// Validate checks the action and the length.
func (in *RecordIn) Validate() error {
	if !slices.Contains(recordActions, in.Action) {
		return usage("%s %q: one of %s", fld("action"), in.Action, strings.Join(recordActions, ", "))
	}
	if in.Max != 0 && (in.Action != "start" || in.Max.Duration() <= 0 || in.Max.Duration() > MaxRecording) {
		return usage("%s: a positive time up to %s, with start only", fld("max_ms"), MaxRecording)
	}
	if len(in.Surface) > 64 {
		return usage("%s: at most 64 characters", fld("surface_id"))
	}
	return nil
}

// Writes: starting and stopping are writes, status a read.
func (in *RecordIn) Writes() bool { return in.Action != "status" }

// RecordOut is record's output.
type RecordOut = wire.RecordOut

func recordOps() []*Op {
	return []*Op{
		describe[RecordIn, RecordOut]("record", "record a tab as a WebM video (start, stop, status); the file goes to the session's files", Read, 2*time.Minute).as(ActRecord).
			mcp(Tool{Name: "browser_record", Desc: "Record a tab as a WebM video: action start (max_ms, default 20 s, at most 90 s), stop (the file goes to the session's files, checked to decode), or status."}),
	}
}
