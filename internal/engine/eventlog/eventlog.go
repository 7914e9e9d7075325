// Package eventlog keeps what a browser session's pages said and did:
// console messages, network requests and JavaScript dialogs, newest last,
// each list bounded (the oldest records go first), in one sequence across
// every surface, also those that have closed. It decodes the protocol's
// events itself; the engine core feeds it every page session's events and
// names the surface each came from (Source).
package eventlog

import (
	"context"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// Provenance: a record names its surface only when the protocol says where
// it came from: a console call by the execution context it ran in (a
// frame's context, reported on the session that hosts the frame), a request
// or a dialog by its frameId. Nothing is inferred from a URL or a title;
// records from workers or from contexts loupe never saw created carry no
// surface_id.

// Bounds of the event log.
const (
	maxConsole = 1000
	maxNetwork = 1000
	maxDialogs = 200
)

// ConsoleRecord is one console API call (console.log, .error, …).
type ConsoleRecord struct {
	Seq       int64     `json:"seq"`
	SurfaceID string    `json:"surface_id,omitempty"`
	Level     string    `json:"level"` // log, info, warning, error, debug, …
	Text      string    `json:"text"`
	URL       string    `json:"url,omitempty"` // script of the call site
	Line      int64     `json:"line,omitempty"`
	Time      time.Time `json:"time"`
}

// NetworkRecord is one request, updated as its response arrives.
type NetworkRecord struct {
	Seq        int64     `json:"seq"`
	SurfaceID  string    `json:"surface_id,omitempty"`
	Method     string    `json:"method"`
	URL        string    `json:"url"`
	Type       string    `json:"type,omitempty"` // Document, Script, XHR, Fetch, …
	Status     int64     `json:"status,omitempty"`
	MIME       string    `json:"mime,omitempty"`
	Bytes      float64   `json:"bytes,omitempty"` // encoded bytes received
	Failed     string    `json:"failed,omitempty"`
	State      string    `json:"state"` // pending, done, failed
	Start      time.Time `json:"start"`
	DurationMS float64   `json:"duration_ms,omitempty"`

	id    string
	begin float64 // monotonic seconds, from the protocol
}

// DialogRecord is one JavaScript dialog and what loupe answered.
type DialogRecord struct {
	Seq           int64     `json:"seq"`
	SurfaceID     string    `json:"surface_id,omitempty"`
	Type          string    `json:"type"` // alert, confirm, prompt, beforeunload
	Message       string    `json:"message"`
	URL           string    `json:"url,omitempty"`
	DefaultPrompt string    `json:"default_prompt,omitempty"`
	Action        string    `json:"action"` // accepted, dismissed, failed
	PromptText    string    `json:"prompt_text,omitempty"`
	Time          time.Time `json:"time"`
}

// DialogPolicy says how loupe answers JavaScript dialogs. Dialogs are
// always answered at once, so none ever blocks the page an agent drives.
type DialogPolicy struct {
	// Mode is "auto" (accept alerts and beforeunload, dismiss confirm and
	// prompt: the answers that change least), "accept" or "dismiss".
	Mode string `json:"mode"`
	// PromptText is typed into prompts that are accepted.
	PromptText string `json:"prompt_text,omitempty"`
}

// Accepts reports whether a dialog of the type (alert, confirm, prompt,
// beforeunload) is accepted.
func (p DialogPolicy) Accepts(typ string) bool {
	switch p.Mode {
	case "accept":
		return true
	case "dismiss":
		return false
	}
	return typ == "alert" || typ == "beforeunload"
}

// Log is a session's event log. Its methods may be called from any
// goroutine.
type Log struct {
	mu      sync.Mutex
	seq     int64
	console []ConsoleRecord
	network []*NetworkRecord
	byReq   map[string]*NetworkRecord
	dialogs []DialogRecord
	nDialog int64 // dialogs ever seen (the list is bounded)
	// dialogNews is closed (and dropped) when a dialog is recorded: it
	// wakes AwaitDialog.
	dialogNews chan struct{}
	policy     DialogPolicy
}

// New returns an empty log whose dialog policy is auto.
func New() *Log {
	return &Log{byReq: map[string]*NetworkRecord{}, policy: DialogPolicy{Mode: "auto"}}
}

func (l *Log) addConsole(r ConsoleRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	r.Seq = l.seq
	l.console = appendBounded(l.console, r, maxConsole)
}

// AddDialog records a dialog and how it was answered.
func (l *Log) AddDialog(r DialogRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.nDialog++
	r.Seq = l.seq
	l.dialogs = appendBounded(l.dialogs, r, maxDialogs)
	if l.dialogNews != nil {
		close(l.dialogNews)
		l.dialogNews = nil
	}
}

// AwaitDialog waits, at most d, until more than n dialogs have been
// recorded, and reports whether they have.
func (l *Log) AwaitDialog(ctx context.Context, n int64, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		l.mu.Lock()
		if l.nDialog > n {
			l.mu.Unlock()
			return true
		}
		if l.dialogNews == nil {
			l.dialogNews = make(chan struct{})
		}
		news := l.dialogNews
		l.mu.Unlock()
		select {
		case <-news:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

func (l *Log) addRequest(r *NetworkRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if old := l.byReq[r.id]; old != nil && old.State == "pending" {
		// A redirect reuses the request id: the earlier hop is done.
		old.State = "done"
		delete(l.byReq, r.id)
	}
	l.seq++
	r.Seq = l.seq
	if len(l.network) >= maxNetwork {
		delete(l.byReq, l.network[0].id)
	}
	l.network = appendBounded(l.network, r, maxNetwork)
	l.byReq[r.id] = r
}

// updateRequest applies fn to a pending request's record.
func (l *Log) updateRequest(id string, fn func(*NetworkRecord)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := l.byReq[id]; r != nil {
		fn(r)
		if r.State != "pending" {
			delete(l.byReq, id)
		}
	}
}

func appendBounded[T any](s []T, v T, max int) []T {
	if len(s) >= max {
		copy(s, s[1:])
		s = s[:len(s)-1]
	}
	return append(s, v)
}

// Console returns the console records, oldest first, of one surface (or
// all when surface is ""); clear forgets the records it returns, and only
// those: another surface's stay for whoever reads them (an agent clearing
// its own tab's messages must not take another task's).
func (l *Log) Console(surface string, clear bool) []ConsoleRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []ConsoleRecord{}
	var keep []ConsoleRecord
	for _, r := range l.console {
		if surface == "" || r.SurfaceID == surface {
			out = append(out, r)
		} else if clear {
			keep = append(keep, r)
		}
	}
	if clear {
		l.console = keep
	}
	return out
}

// Network returns copies of the network records, oldest first, of one
// surface (or all); clear forgets the finished ones it returns (pending
// ones are still followed, and another surface's stay, as in Console).
func (l *Log) Network(surface string, clear bool) []NetworkRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []NetworkRecord{}
	var keep []*NetworkRecord
	for _, r := range l.network {
		mine := surface == "" || r.SurfaceID == surface
		if mine {
			out = append(out, *r)
		}
		if clear && (!mine || r.State == "pending") {
			keep = append(keep, r)
		}
	}
	if clear {
		l.network = keep
	}
	return out
}

// Dialogs returns the dialog records, oldest first.
func (l *Log) Dialogs() []DialogRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]DialogRecord{}, l.dialogs...)
}

// DialogCount is the number of dialogs ever recorded (the list is bounded).
func (l *Log) DialogCount() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nDialog
}

// DialogPolicy returns how dialogs are answered now.
func (l *Log) DialogPolicy() DialogPolicy {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.policy
}

// SetDialogPolicy changes how later dialogs are answered.
func (l *Log) SetDialogPolicy(p DialogPolicy) {
	l.mu.Lock()
	l.policy = p
	l.mu.Unlock()
}

// Source names the surface a page session's records came from, as the
// protocol says it: a console call by the execution context it ran in, a
// request by its frame. Each returns "" when it cannot tell.
type Source interface {
	ContextSurface(executionContextID int64) string
	FrameSurface(frameID string) string
}

// Record logs one of a page session's events (one of Methods).
func (l *Log) Record(ev cdp.Event, src Source) {
	switch ev.Method {
	case "Runtime.consoleAPICalled":
		var e runtime.EventConsoleAPICalled
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		r := ConsoleRecord{Level: consoleLevel(string(e.Type)), Text: consoleText(e.Args), Time: time.Now()}
		if st := e.StackTrace; st != nil && len(st.CallFrames) > 0 {
			r.URL, r.Line = st.CallFrames[0].URL, st.CallFrames[0].LineNumber+1
		}
		r.SurfaceID = src.ContextSurface(int64(e.ExecutionContextID))
		l.addConsole(r)
	case "Runtime.exceptionThrown":
		// An uncaught exception or an unhandled promise rejection: an
		// error, with its message and where it was thrown.
		var e runtime.EventExceptionThrown
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.ExceptionDetails == nil {
			return
		}
		l.addConsole(exceptionRecord(e.ExceptionDetails, src))
	case "Network.requestWillBeSent":
		var e struct {
			RequestID string  `json:"requestId"`
			FrameID   string  `json:"frameId"`
			Type      string  `json:"type"`
			Timestamp float64 `json:"timestamp"`
			Request   struct {
				Method string `json:"method"`
				URL    string `json:"url"`
			} `json:"request"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		r := &NetworkRecord{id: e.RequestID, begin: e.Timestamp, Method: e.Request.Method, URL: e.Request.URL,
			Type: e.Type, State: "pending", Start: time.Now()}
		if e.FrameID != "" {
			r.SurfaceID = src.FrameSurface(e.FrameID)
		}
		l.addRequest(r)
	case "Network.responseReceived":
		var e struct {
			RequestID string `json:"requestId"`
			Response  struct {
				Status   int64  `json:"status"`
				MimeType string `json:"mimeType"`
			} `json:"response"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			l.updateRequest(e.RequestID, func(r *NetworkRecord) {
				r.Status, r.MIME = e.Response.Status, e.Response.MimeType
			})
		}
	case "Network.loadingFinished", "Network.loadingFailed":
		var e struct {
			RequestID         string  `json:"requestId"`
			Timestamp         float64 `json:"timestamp"`
			EncodedDataLength float64 `json:"encodedDataLength"`
			ErrorText         string  `json:"errorText"`
			Canceled          bool    `json:"canceled"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		l.updateRequest(e.RequestID, func(r *NetworkRecord) {
			r.DurationMS = float64(int64((e.Timestamp-r.begin)*1e4)) / 10
			if ev.Method == "Network.loadingFailed" {
				r.State, r.Failed = "failed", e.ErrorText
				if e.Canceled && r.Failed == "" {
					r.Failed = "canceled"
				}
				return
			}
			r.State, r.Bytes = "done", e.EncodedDataLength
		})
	}
}

// Methods are the events Record handles.
var Methods = []string{
	"Runtime.consoleAPICalled", "Runtime.exceptionThrown",
	"Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed",
}

// exceptionRecord is an uncaught exception as a console error: DevTools'
// "Uncaught Error: boom" (or "Uncaught (in promise) …"), with the script
// and line it was thrown at. Its level is "exception", apart from
// console.error calls.
func exceptionRecord(d *runtime.ExceptionDetails, src Source) ConsoleRecord {
	text := d.Text
	if ex := d.Exception; ex != nil {
		desc := ex.Description
		if desc == "" && len(ex.Value) > 0 {
			desc = string(ex.Value)
		}
		if desc != "" {
			// The description starts with the message, then the stack.
			first, _, _ := strings.Cut(desc, "\n")
			text = strings.TrimSuffix(strings.TrimSpace(d.Text), ":") + " " + first
			if !strings.HasPrefix(d.Text, "Uncaught") {
				text = first
			}
		}
	}
	r := ConsoleRecord{Level: "exception", Text: text, URL: d.URL, Line: d.LineNumber + 1, Time: time.Now()}
	if st := d.StackTrace; r.URL == "" && st != nil && len(st.CallFrames) > 0 {
		r.URL, r.Line = st.CallFrames[0].URL, st.CallFrames[0].LineNumber+1
	}
	r.SurfaceID = src.ContextSurface(int64(d.ExecutionContextID))
	return r
}

// consoleLevel is the call's type, with a failed console.assert counted as
// an error.
func consoleLevel(typ string) string {
	if typ == "assert" {
		return "error"
	}
	return typ
}

// consoleText renders console arguments the way DevTools shows them on one
// line: strings as they are, other values by their JSON or description.
func consoleText(args []*runtime.RemoteObject) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case a == nil:
		case a.Type == "string" && len(a.Value) > 0:
			var s string
			if jsonv2.Unmarshal(a.Value, &s) == nil {
				b.WriteString(s)
			}
		case a.UnserializableValue != "":
			b.WriteString(string(a.UnserializableValue))
		case len(a.Value) > 0:
			b.Write(a.Value)
		case a.Type == "undefined":
			b.WriteString("undefined")
		case a.Description != "":
			b.WriteString(a.Description)
		default:
			b.WriteString(string(a.Type))
		}
	}
	return b.String()
}
