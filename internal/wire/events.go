package wire

import (
	"fmt"
	"strings"
	"time"
)

// Records carry surface_id only when the protocol says unambiguously where
// they came from (the CDP session), never inferred from URLs or titles.

// ConsoleRecord is one console message.
type ConsoleRecord struct {
	Seq       int64     `json:"seq"`
	SurfaceID string    `json:"surface_id,omitempty" cap:"-"`
	Level     string    `json:"level" cap:"-"` // log, info, warning, error, debug, …
	Text      string    `json:"text" cap:"text"`
	URL       string    `json:"url,omitempty" cap:"url"` // script of the call site
	Line      int64     `json:"line,omitempty"`
	Time      time.Time `json:"time"`
}

// ConsoleOut lists console messages.
type ConsoleOut struct {
	Records []ConsoleRecord `json:"records"`
}

// Text is one line a message: "[s1] error: text (url:line)".
func (o *ConsoleOut) Text() string {
	if len(o.Records) == 0 {
		return "no console messages"
	}
	var b strings.Builder
	for _, r := range o.Records {
		fmt.Fprintf(&b, "[%s] %s: %s", orDash(r.SurfaceID), r.Level, r.Text)
		if r.URL != "" {
			fmt.Fprintf(&b, " (%s:%d)", r.URL, r.Line)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// NetworkRecord is one request, as of its latest event.
type NetworkRecord struct {
	Seq        int64     `json:"seq"`
	SurfaceID  string    `json:"surface_id,omitempty" cap:"-"`
	Method     string    `json:"method" cap:"title"`
	URL        string    `json:"url" cap:"url"`
	Type       string    `json:"type,omitempty" cap:"title"` // Document, Script, XHR, Fetch, …
	Status     int64     `json:"status,omitempty"`
	MIME       string    `json:"mime,omitempty" cap:"title"`
	Bytes      float64   `json:"bytes,omitempty"` // encoded bytes received
	Failed     string    `json:"failed,omitempty" cap:"text"`
	State      string    `json:"state" cap:"-"` // pending, done, failed
	Start      time.Time `json:"start"`
	DurationMS float64   `json:"duration_ms,omitempty"`
}

// NetworkOut lists requests or, for network --har, says what the HAR
// file written holds.
type NetworkOut struct {
	Records []NetworkRecord `json:"records"`
	HAR     *HARFile        `json:"har,omitempty"`
}

// Text is one line a request: "[s1] GET 200 12.3ms Document url"; or the
// HAR file's line.
func (o *NetworkOut) Text() string {
	if o.HAR != nil {
		return o.HAR.Text()
	}
	if len(o.Records) == 0 {
		return "no requests"
	}
	var b strings.Builder
	for _, r := range o.Records {
		status := r.State
		switch {
		case r.Failed != "":
			status = "failed (" + r.Failed + ")"
		case r.Status != 0:
			status = fmt.Sprint(r.Status)
		}
		fmt.Fprintf(&b, "[%s] %s %s", orDash(r.SurfaceID), r.Method, status)
		if r.DurationMS > 0 {
			fmt.Fprintf(&b, " %gms", r.DurationMS)
		}
		if r.Type != "" {
			b.WriteString(" " + r.Type)
		}
		b.WriteString(" " + r.URL + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// DialogPolicy says how loupe answers JavaScript dialogs.
type DialogPolicy struct {
	// Mode is "auto" (accept alerts and beforeunload, dismiss confirm and
	// prompt), "accept" or "dismiss".
	Mode string `json:"mode" cap:"-"`
	// PromptText is typed into prompts that are accepted.
	PromptText string `json:"prompt_text,omitempty" cap:"-"`
}

// DialogRecord is one JavaScript dialog and what loupe answered.
type DialogRecord struct {
	Seq           int64     `json:"seq"`
	SurfaceID     string    `json:"surface_id,omitempty" cap:"-"`
	Type          string    `json:"type" cap:"-"` // alert, confirm, prompt, beforeunload
	Message       string    `json:"message" cap:"text"`
	URL           string    `json:"url,omitempty" cap:"url"`
	DefaultPrompt string    `json:"default_prompt,omitempty" cap:"text"`
	Action        string    `json:"action" cap:"-"` // accepted, dismissed, failed
	PromptText    string    `json:"prompt_text,omitempty" cap:"text"`
	Time          time.Time `json:"time"`
}

// DialogsOut lists dialogs and the policy now in force.
type DialogsOut struct {
	Policy  DialogPolicy   `json:"policy"`
	Records []DialogRecord `json:"records"`
}

// Text is the policy, then one line a dialog.
func (o *DialogsOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "policy: %s", o.Policy.Mode)
	if o.Policy.PromptText != "" {
		fmt.Fprintf(&b, " (prompts answered %q)", o.Policy.PromptText)
	}
	for _, r := range o.Records {
		fmt.Fprintf(&b, "\n[%s] %s %q: %s", orDash(r.SurfaceID), r.Type, r.Message, r.Action)
	}
	return b.String()
}

// Download is one download of the session.
type Download struct {
	Seq       int64     `json:"seq"`
	ID        string    `json:"id" cap:"-"` // the browser's guid
	SurfaceID string    `json:"surface_id,omitempty" cap:"-"`
	URL       string    `json:"url" cap:"url"`
	Filename  string    `json:"filename" cap:"title"` // as the page suggested it
	Path      string    `json:"path,omitempty" cap:"url"`
	State     string    `json:"state" cap:"-"` // in_progress, completed, canceled
	Bytes     int64     `json:"bytes"`
	Total     int64     `json:"total,omitempty"`
	Started   time.Time `json:"started"`
	Finished  time.Time `json:"finished,omitzero"`
}

// DownloadsOut lists downloads, and the one waited for.
type DownloadsOut struct {
	Finished  *Download  `json:"finished,omitempty"`
	Downloads []Download `json:"downloads"`
}

// Text is one line a download (or the one waited for).
func (o *DownloadsOut) Text() string {
	line := func(d Download) string {
		s := fmt.Sprintf("[%s] %s %s %d bytes", orDash(d.SurfaceID), d.State, d.Filename, d.Bytes)
		if d.State == "in_progress" && d.Total > 0 {
			s = fmt.Sprintf("[%s] %s %s %d of %d bytes (%d%%)", orDash(d.SurfaceID), d.State, d.Filename, d.Bytes, d.Total, d.Bytes*100/d.Total)
		}
		if d.Path != "" {
			s += " → " + d.Path
		}
		return s
	}
	if o.Finished != nil {
		return line(*o.Finished)
	}
	if len(o.Downloads) == 0 {
		return "no downloads"
	}
	var ls []string
	for _, d := range o.Downloads {
		ls = append(ls, line(d))
	}
	return strings.Join(ls, "\n")
}
