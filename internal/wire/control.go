package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/safetext"
)

// ControlOut says who drives a tab after a take-over or a resume.
type ControlOut struct {
	SurfaceID string `json:"surface_id" cap:"-"`
	Mode      string `json:"mode" cap:"-"` // agent or human
	Epoch     int64  `json:"epoch"`
	// StaleRefs counts the refs a resume made stale.
	StaleRefs int `json:"stale_refs,omitempty"`
}

// Text is one line.
func (o *ControlOut) Text() string {
	if o.Mode == "human" {
		return fmt.Sprintf("%s is yours (epoch %d): agents can neither read nor act on it until `resume`", o.SurfaceID, o.Epoch)
	}
	return fmt.Sprintf("%s is the agents' again (epoch %d); %d earlier refs are stale", o.SurfaceID, o.Epoch, o.StaleRefs)
}

// Approval is a write waiting for a person's answer.
type Approval struct {
	ID          string    `json:"approval_id" cap:"-"`
	OperationID string    `json:"operation_id" cap:"-"`
	Op          string    `json:"op" cap:"-"`
	Action      string    `json:"action" cap:"-"`
	Session     string    `json:"session" cap:"-"`
	Client      string    `json:"client,omitempty" cap:"-"`
	SurfaceID   string    `json:"surface_id,omitempty" cap:"-"`
	Page        string    `json:"page,omitempty" cap:"-"`
	Origin      string    `json:"origin,omitempty" cap:"url"`
	Digest      string    `json:"digest" cap:"-"`
	Rule        string    `json:"rule,omitempty" cap:"-"`
	Asked       time.Time `json:"asked"`
	// Task is the task whose write waits; Target the element it names
	// (a ref or a locator), when it names one.
	Task   string `json:"task,omitempty" cap:"-"`
	Target string `json:"target,omitempty" cap:"text"`
	// Locator is the stable locator of the element Target names; Input
	// what will be sent (the write's input: text to type or fill, keys,
	// options, a URL — a secret field's text masked, files by name and
	// size).
	Locator string          `json:"locator,omitempty" cap:"text"`
	Input   json.RawMessage `json:"input,omitempty" cap:"-"`
	// Element is the element's line as the snapshot printed it (role
	// "name" [ref=eN]), when Target is a ref: made safe and bounded by
	// snapshot.ElementLine (its ref is real; Bound would escape it).
	Element string `json:"element,omitempty" cap:"-"`
}

func (a Approval) line() string {
	s := fmt.Sprintf("%s %s (%s) by %s in session %s", a.ID, a.Op, a.Action, orDash(a.Client), a.Session)
	if a.Task != "" {
		s += ", task " + a.Task
	}
	if a.Target != "" {
		s += ", target " + a.Target
	}
	if a.SurfaceID != "" {
		s += " on " + a.SurfaceID
	}
	if a.Origin != "" {
		s += " " + a.Origin
	}
	s += ", asked " + a.Asked.UTC().Format(time.RFC3339)
	switch {
	case a.Element != "" && a.Locator != "":
		s += "\n    element " + a.Element + ", " + a.Locator
	case a.Element != "":
		s += "\n    element " + a.Element
	case a.Locator != "":
		s += "\n    element " + a.Locator
	}
	if len(a.Input) > 0 {
		s += "\n    sends   " + safetext.Line(string(a.Input)) // JSON escapes controls, not bidi overrides
	}
	return s
}

// ApprovalsOut lists the writes waiting for a person.
type ApprovalsOut struct {
	Approvals []Approval `json:"approvals"`
}

// Text is one line a waiting write.
func (o *ApprovalsOut) Text() string {
	if len(o.Approvals) == 0 {
		return "no write is waiting for approval"
	}
	ls := make([]string, len(o.Approvals))
	for i, a := range o.Approvals {
		ls[i] = a.line()
	}
	return strings.Join(ls, "\n")
}

// AnswerOut says how a waiting write was answered.
type AnswerOut struct {
	Approval
	Approved bool `json:"approved"`
}

// Text is one line.
func (o *AnswerOut) Text() string {
	if o.Approved {
		return "approved " + o.ID + ": " + o.Op + " goes out"
	}
	return "denied " + o.ID + ": " + o.Op + " is not sent"
}

// PolicyRule is one rule of the approval policy.
type PolicyRule struct {
	Key      string `json:"key" cap:"-"`
	Origin   string `json:"origin,omitempty" cap:"-"`
	Decision string `json:"decision" cap:"-"`
}

// PolicyOut is the approval policy in force.
type PolicyOut struct {
	Rules           []PolicyRule `json:"rules"`
	ApprovalTimeout string       `json:"approval_timeout" cap:"-"`
}

// Text is one line a rule, then the timeout.
func (o *PolicyOut) Text() string {
	var b strings.Builder
	if len(o.Rules) == 0 {
		b.WriteString("no rules: every write is allowed\n")
	}
	for _, r := range o.Rules {
		fmt.Fprintf(&b, "%s %s", r.Key, r.Decision)
		if r.Origin != "" {
			b.WriteString(" on " + r.Origin)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "approvals wait at most %s", o.ApprovalTimeout)
	return b.String()
}

// SettingsOut is the browser-control settings in force, and the file
// that keeps them.
type SettingsOut struct {
	File                    string `json:"file" cap:"-"`
	ControlEnabled          bool   `json:"controlEnabled"`
	IgnoreCertificateErrors bool   `json:"ignoreCertificateErrors"`
}

// Text is a setting a line, then the file.
func (o *SettingsOut) Text() string {
	return fmt.Sprintf("controlEnabled %t\nignoreCertificateErrors %t\n(%s)", o.ControlEnabled, o.IgnoreCertificateErrors, o.File)
}

// ImportCookiesOut says what import-cookies brought in and what it left
// out, by why.
type ImportCookiesOut struct {
	From                 string `json:"from" cap:"-"`
	Imported             int    `json:"imported"`
	SkippedExpired       int    `json:"skipped_expired"`
	SkippedAppBound      int    `json:"skipped_app_bound"`
	SkippedUndecryptable int    `json:"skipped_undecryptable"`
}

// Text is one line.
func (o *ImportCookiesOut) Text() string {
	return fmt.Sprintf("imported %d cookies from %s; skipped %d expired, %d app-bound (only Chrome may read them), %d undecryptable",
		o.Imported, o.From, o.SkippedExpired, o.SkippedAppBound, o.SkippedUndecryptable)
}

// ClearedOut says what settings clear-cache or clear-data removed.
type ClearedOut struct {
	Session string `json:"session" cap:"-"`
	// Cleared is what went: "cache" (the HTTP cache, Cache Storage and
	// service workers) or "all data" (every storage type, cookies too).
	Cleared string `json:"cleared" cap:"-"`
	// Kept says what stayed.
	Kept string `json:"kept" cap:"-"`
}

// Text is one line.
func (o *ClearedOut) Text() string {
	return fmt.Sprintf("cleared %s of session %s's shared partition, every site; kept %s", o.Cleared, o.Session, o.Kept)
}

// HumanInputOut says a person's input reached a tab.
type HumanInputOut struct {
	SurfaceID string `json:"surface_id" cap:"-"`
	Kind      string `json:"kind" cap:"-"`
}

// Text is one line.
func (o *HumanInputOut) Text() string { return o.Kind + " sent to " + o.SurfaceID }

// DashboardOut is the dashboard's address, with the token that signs a
// person in.
type DashboardOut struct {
	URL string `json:"url" cap:"-"`
}

// Text is the address and what to do with it.
func (o *DashboardOut) Text() string {
	return o.URL + "\n(open it in a browser: the token in it signs you in; keep it to yourself)"
}
