package apitype

import "encoding/json"

// The local API is HTTP over the daemon's unix socket. Every route is
// under Prefix; a request carries the client's build in HeaderBuild and the
// daemon answers with its own, so a CLI can tell it is talking to a daemon
// from another build.
const (
	Prefix      = "/v0"
	HeaderBuild = "Loupe-Build"
	// HeaderDaemon names the daemon process that answered (its pid and
	// start time), so that a long-lived client (an MCP server on the
	// daemon) can tell that the daemon restarted between two calls.
	HeaderDaemon = "Loupe-Daemon"
	// Host is the Host header clients send; the daemon refuses others.
	Host = "loupe"
)

// OpRequest is a call's request envelope: the body of POST /v0/op/NAME,
// and what every front end fills in for a call, whether it sends it to
// the daemon or hands it to an executor in its own process
// (executor.Request embeds it).
type OpRequest struct {
	// Session names the session ("" is "default").
	Session string `json:"session,omitempty"`
	// Client names the caller within the session; each client keeps its
	// own current surface and snapshots ("" is the CLI's).
	Client string `json:"client,omitempty"`
	// Task is the task the caller works as ("" is its default task);
	// Grant the grant id it keeps, if any: a write under a grant that is
	// not current is refused (NO_GRANT).
	Task  string `json:"task,omitempty"`
	Grant string `json:"grant,omitempty"`
	// Input is the operation's input as JSON.
	Input json.RawMessage `json:"input,omitempty"`
	// TimeoutMS overrides the operation's default deadline (0: the
	// default).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Report asks for a write's report.
	Report *ReportOptions `json:"report,omitempty"`
	// OperationID names a write in the ledger; "" lets the executor pick
	// one. An id is used once, ever.
	OperationID string `json:"operation_id,omitempty"`
	// DocumentToken, on a write, is the document token of the snapshot
	// the write was planned on: the write is refused (STALE_REF) when the
	// caller's surface shows another document now.
	DocumentToken string `json:"document_token,omitempty"`
	// LocalPages lets the caller open file: and chrome: pages (the CLI;
	// an MCP server only when started with --allow-local-pages).
	LocalPages bool `json:"local_pages,omitempty"`
}

// OpResponse is the reply: a result or an error, never both.
type OpResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	// OperationID is the write's id in the ledger (writes only).
	OperationID string `json:"operation_id,omitempty"`
	// Grant is the id of the task's grant the call ran under.
	Grant string `json:"grant,omitempty"`
	// ApprovedAfterMS is how long the write waited for a person's
	// approval (absent: it did not wait).
	ApprovedAfterMS int64 `json:"approved_after_ms,omitempty"`
	// Warning is what the caller should know of a write that ran: its
	// outcome could not be recorded in the ledger.
	Warning string  `json:"warning,omitempty"`
	Report  *Report `json:"report,omitempty"`
	Error   *Error  `json:"error,omitempty"`
}

// ReportOptions say what a write's report carries besides the changes of
// the session: Diff, the lines of the caller's last snapshot of its
// surface that changed; Snapshot, a whole new snapshot instead (cut at
// MaxChars when set).
type ReportOptions struct {
	Diff     bool `json:"diff,omitempty"`
	Snapshot bool `json:"snapshot,omitempty"`
	MaxChars int  `json:"max_chars,omitempty"`
}

// Report is what a write changed, taken by the executor right after the
// write settled, in the same call, for every front end alike.
type Report struct {
	// Surface is the caller's current surface after the write.
	Surface string `json:"surface_id,omitempty"`
	// SwitchedFrom is the caller's surface before, when the write changed it.
	SwitchedFrom string `json:"switched_from,omitempty"`
	// Navigated is the surface's new URL, when it changed.
	Navigated string   `json:"navigated,omitempty" cap:"url"`
	Opened    []string `json:"opened,omitempty"` // page roots that appeared
	Closed    []string `json:"closed,omitempty"` // page roots that went away
	// Dialogs answered during the write.
	Dialogs []ReportDialog `json:"dialogs,omitempty"`
	// DownloadsStarted counts downloads that began.
	DownloadsStarted int `json:"downloads_started,omitempty"`
	// FileChooser is "pending" when the surface's page has asked for
	// files (a file chooser opened) and no upload has answered yet.
	FileChooser string `json:"file_chooser,omitempty"`
	// Diff is the change to the caller's last snapshot of Surface.
	Diff *Diff `json:"diff,omitempty"`
	// NoBaseline: a diff was asked for, but the caller has no snapshot of
	// Surface to compare with.
	NoBaseline bool `json:"no_baseline,omitempty"`
	// Snapshot is a new snapshot of Surface (when asked for).
	Snapshot *ReportSnapshot `json:"snapshot,omitempty"`
	// SnapshotError says why no snapshot or diff could be taken.
	SnapshotError string `json:"snapshot_error,omitempty" cap:"text"`
}

// ReportDialog is one dialog answered during a write.
type ReportDialog struct {
	SurfaceID string `json:"surface_id,omitempty"`
	Type      string `json:"type"`
	Message   string `json:"message" cap:"text"`
	Action    string `json:"action"`
}

// Diff is a line diff of a snapshot: Lines holds the changed lines, cut
// to a bound that the text states.
type Diff struct {
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Lines   string `json:"lines,omitempty" cap:"page"`
}

// ReportSnapshot is a snapshot's text (without its size footer).
type ReportSnapshot struct {
	Text      string `json:"text,omitempty" cap:"-"` // bounded by the report's max_chars; empty in MCP structured content: it is the text content
	Chars     int    `json:"chars"`
	Truncated bool   `json:"truncated,omitempty"`
}

// Status is the reply of GET /v0/status.
type Status struct {
	Build    string        `json:"build"`
	PID      int           `json:"pid"`
	RSSBytes int64         `json:"rss_bytes"`
	Uptime   string        `json:"uptime"`
	Home     string        `json:"home"`
	Ledger   *LedgerInfo   `json:"ledger,omitempty"`
	Sessions []SessionInfo `json:"sessions"`
}

// LedgerInfo is where the daemon's operation ledger is.
type LedgerInfo struct {
	// Backend is "sqlite" or "postgres".
	Backend string `json:"backend"`
	// Where is the SQLite file, or the PostgreSQL URL without its
	// password.
	Where string `json:"where"`
	// Host is the host identity the daemon records on its writes.
	Host string `json:"host"`
}

// SessionInfo describes a session with a running browser.
type SessionInfo struct {
	Name     string `json:"name"`
	Browser  string `json:"browser"`
	PID      int    `json:"pid,omitempty"`
	Attached bool   `json:"attached,omitempty"`
	Tabs     int    `json:"tabs"`
	// Grid is the Selenium Grid the browser runs on, WebDriverSession
	// its session there and Node the node that runs it (when the Grid
	// says); all empty for a browser launched here or attached over CDP.
	Grid             string `json:"grid,omitempty"`
	WebDriverSession string `json:"webdriver_session,omitempty"`
	Node             string `json:"node,omitempty"`
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
