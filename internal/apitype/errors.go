// Package apitype holds what loupe's front ends and its daemon share on the
// wire: the error registry and the request and response envelopes of the
// local API.
package apitype

import (
	"errors"
	"fmt"
)

// Code is a stable error code from the registry. Agents and scripts match
// on it; messages may change, codes do not.
type Code string

// The registry. Every error a front end shows carries one of these codes.
const (
	StaleRef             Code = "STALE_REF"
	StaleObservation     Code = "STALE_OBSERVATION"
	RefNotFound          Code = "REF_NOT_FOUND"
	RefWrongSurface      Code = "REF_WRONG_SURFACE"
	Ambiguous            Code = "AMBIGUOUS"
	NotActionable        Code = "NOT_ACTIONABLE"
	Timeout              Code = "TIMEOUT"
	NavigationFailed     Code = "NAVIGATION_FAILED"
	SurfaceClosed        Code = "SURFACE_CLOSED"
	SurfaceNotFound      Code = "SURFACE_NOT_FOUND"
	SurfaceUnsupported   Code = "SURFACE_UNSUPPORTED"
	TransportUnsupported Code = "TRANSPORT_UNSUPPORTED"
	BrowserGone          Code = "BROWSER_GONE"
	NoGrant              Code = "NO_GRANT"
	HumanControl         Code = "HUMAN_CONTROL"
	Denied               Code = "DENIED"
	DuplicateOperation   Code = "DUPLICATE_OPERATION"
	OutcomeUnknown       Code = "OUTCOME_UNKNOWN"
	TakenOver            Code = "TAKEN_OVER"
	ApprovalTimeout      Code = "APPROVAL_TIMEOUT"
	TabCrashed           Code = "TAB_CRASHED"
	PageBlocked          Code = "PAGE_BLOCKED"
	TabLimit             Code = "TAB_LIMIT"
	TooManySessions      Code = "TOO_MANY_SESSIONS"
	GridBusy             Code = "GRID_BUSY"
	GridUnavailable      Code = "GRID_UNAVAILABLE"
	BadInput             Code = "BAD_INPUT"
	EvalFailed           Code = "EVAL_FAILED"
	BrowserStart         Code = "BROWSER_START_FAILED"
	DaemonUnavailable    Code = "DAEMON_UNAVAILABLE"
	ForeignOrigin        Code = "FOREIGN_ORIGIN"
	FileError            Code = "FILE_ERROR"
	Internal             Code = "INTERNAL"
)

// Hints are the one-line recovery advice shown with each code, in no front
// end's terms: {timeout} and {help} are rendered by each front end (see
// Render).
var Hints = map[Code]string{
	StaleRef:             "the page changed since that snapshot; take a new snapshot and use its refs",
	StaleObservation:     "the page moved since that screenshot; take a new screenshot and use its coordinates and observation",
	RefNotFound:          "no such ref was issued; take a snapshot and use a ref from it",
	RefWrongSurface:      "that ref belongs to another surface; switch to it or snapshot this one",
	Ambiguous:            "several elements match; use one of the candidate refs or a narrower locator",
	NotActionable:        "the element cannot take input now; check the snapshot, scroll, close what covers it, or wait",
	Timeout:              "the condition did not happen in time; check the page or {timeout}",
	NavigationFailed:     "the page did not load; check the URL and that the server is reachable",
	SurfaceClosed:        "that surface has closed; list surfaces and pick a live one",
	SurfaceNotFound:      "no surface has that id; list surfaces to see the ids",
	SurfaceUnsupported:   "this surface cannot do that; pick another surface",
	TransportUnsupported: "this browser connection cannot do that",
	BrowserGone:          "the browser has exited; run the command again to start a new one",
	NoGrant:              "this call's grant is not current; ask for a fresh grant",
	HumanControl:         "a person has taken over this tab; wait until it is handed back",
	Denied:               "the approval policy denied this action",
	DuplicateOperation:   "that operation id was already used; its outcome stands (see the ledger); send a new id only for a new write",
	OutcomeUnknown:       "the write may or may not have happened; look at the page before doing it again (loupe never replays it)",
	TakenOver:            "a person took over the tab before this ran; wait until it is handed back, then take a new snapshot",
	ApprovalTimeout:      "nobody answered the approval in time; ask the person, or try again later",
	TabCrashed:           "the tab's renderer crashed; it was reloaded for a person to check; take a new snapshot",
	PageBlocked:          "the page opens dialogs without end and is stopped in the last; navigate away, reload or close the tab",
	TabLimit:             "too many tabs are open; close one first",
	TooManySessions:      "the daemon runs as many sessions with a browser as it may; close one that is done ({1} in that session), or restart the daemon with a higher --max-sessions",
	GridBusy:             "every slot of the Selenium Grid is taken; close a session that holds one ({1} in that session), try again later, or wait longer in the Grid's queue ({timeout})",
	GridUnavailable:      "the Selenium Grid did not answer; check its address and that it is up (its /status), then try again",
	BadInput:             "fix the arguments and try again ({help})",
	EvalFailed:           "the script threw; fix the expression",
	BrowserStart:         "install Chromium (apt-get install chromium) or set LOUPE_CHROMIUM to its path",
	DaemonUnavailable:    "start the daemon ({1}) or check LOUPE_HOME",
	ForeignOrigin:        "the local API only answers loupe's own clients on this machine, never a web page or another host",
	FileError:            "check the path, that its directory exists and the disk has room, then try again",
	Internal:             "this is a bug in loupe; please report it with the command that caused it",
}

// Error is a registry error. NotExecuted is true when the requested action
// certainly did not run, so it is safe to retry after fixing the cause.
type Error struct {
	Code        Code     `json:"code"`
	Message     string   `json:"message" cap:"text"`
	Hint        string   `json:"hint,omitempty" cap:"text"`
	NotExecuted bool     `json:"not_executed"`
	Candidates  []string `json:"candidates,omitempty"`
	SimilarRefs []string `json:"similar_refs,omitempty"`
	// SurfaceID names the surface a ref belongs to (REF_WRONG_SURFACE).
	SurfaceID string `json:"surface_id,omitempty"`
	// Recovery lists calls that recover, in no front end's terms; the
	// hint refers to them as {1}, {2}, … (see Render).
	Recovery []Step `json:"recovery,omitempty"`
	// TimeoutMS is the deadline that ran out (TIMEOUT).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Op is the operation that failed, set by the executor; front ends
	// name its fields and its help in their own terms.
	Op string `json:"op,omitempty"`
	// OperationID is the write's id in the ledger.
	OperationID string `json:"operation_id,omitempty"`

	cause error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the error that caused this one, if any.
func (e *Error) Unwrap() error { return e.cause }

// Errorf makes a registry error with the code's hint. The action is marked
// not executed; use [Error.Executed] for failures after input was sent.
func Errorf(code Code, format string, args ...any) *Error {
	e := &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: Hints[code], NotExecuted: true}
	switch code {
	case DaemonUnavailable:
		e.Recovery = []Step{{Op: "daemon start"}}
	case TooManySessions, GridBusy:
		e.Recovery = []Step{{Op: "close"}}
	}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.cause = err
		}
	}
	return e
}

// Wrap makes a registry error around cause.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.cause = cause
	return e
}

// Fix sets the hint and the calls it refers to as {1}, {2}, …
func (e *Error) Fix(hint string, steps ...Step) *Error {
	e.Hint = hint
	e.Recovery = steps
	return e
}

// Executed marks the error as one that happened after the action may have
// taken effect: retrying is not known to be safe.
func (e *Error) Executed() *Error {
	e.NotExecuted = false
	return e
}

// As returns the registry error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
