package ops

import (
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/internal/routespec"
	"github.com/loupe-dev/loupe/internal/wire"
)

// RouteIn is the input of route: mock, block or rewrite the caller's
// tab's requests whose URL matches a pattern (see package
// engine/network). The CLI reads --fulfill FILE itself, with its user's
// rights, and sends the content; other clients name a file of the
// session's files, or give the body as text.
type RouteIn struct {
	Pattern  string   `json:"pattern" arg:"PATTERN" help:"the URLs to route, a glob over the whole URL: ** any characters, * any but /, {a,b} either (e.g. '**/api/*')"`
	Fulfill  string   `json:"fulfill,omitempty" flag:"fulfill" meta:"FILE" help:"answer the requests with FILE's content (at most 8 MiB); no request reaches the server" mcphelp:"answer the requests with the content of this file of the session's files (at most 8 MiB); no request reaches the server"`
	Body     string   `json:"body,omitempty" flag:"body" meta:"TEXT" help:"answer the requests with TEXT" mcphelp:"answer the requests with this text"`
	Status   int      `json:"status,omitempty" flag:"status" meta:"N" help:"the answer's status (default 200), with {field:fulfill} or {field:body}"`
	Headers  []string `json:"headers,omitempty" flag:"header" meta:"K:V" help:"a header of the answer, or with {field:continue} a header to set on the request ('K:' removes it); repeat for more" mcphelp:"headers ('Name: value') of the answer, or with continue headers to set on the request ('Name:' removes one)"`
	Abort    bool     `json:"abort,omitempty" flag:"abort" help:"fail the requests (net::ERR_BLOCKED_BY_CLIENT)"`
	Continue bool     `json:"continue,omitempty" flag:"continue" help:"send the requests on, with each --header set" mcphelp:"send the requests on, with the headers set"`
	// Data is the body the CLI read from --fulfill FILE.
	Data []byte `json:"body_data,omitempty" mcp:"-" cli:"the content of --fulfill FILE, which the CLI reads"`
	// Read says the CLI read the file: Data is the body, even empty.
	Read bool `json:"body_read,omitempty" mcp:"-" cli:"set with --fulfill: the CLI read FILE"`
}

// MaxRouteBody bounds a fulfilled route's body (engine/network.MaxBody).
const MaxRouteBody = 8 << 20

// Validate checks the pattern, that the route does one thing, and what it
// sets.
func (in *RouteIn) Validate() error {
	if _, err := routespec.Compile(in.Pattern); err != nil {
		return usage("%s: %v", fld("pattern"), err)
	}
	fulfill := in.Fulfill != "" || in.Body != "" || len(in.Data) > 0
	n := 0
	for _, b := range []bool{fulfill, in.Abort, in.Continue} {
		if b {
			n++
		}
	}
	switch {
	case n != 1:
		return usage("give one of %s (or %s), %s, %s", fld("fulfill"), fld("body"), fld("abort"), fld("continue"))
	case in.Body != "" && (in.Fulfill != "" || len(in.Data) > 0):
		return usage("give %s or %s, not both", fld("fulfill"), fld("body"))
	case in.Status != 0 && !fulfill:
		return usage("%s is the status of an answer: with %s or %s", fld("status"), fld("fulfill"), fld("body"))
	case in.Status != 0 && (in.Status < 100 || in.Status > 599):
		return usage("%s %d: want 100 to 599", fld("status"), in.Status)
	case in.Abort && len(in.Headers) > 0:
		return usage("%s: an aborted request has no headers", fld("headers"))
	case in.Continue && len(in.Headers) == 0:
		return usage("%s sends the requests on with headers set: give at least one %s", fld("continue"), fld("headers"))
	case len(in.Headers) > 64:
		return usage("%d %s: at most 64", len(in.Headers), fld("headers"))
	case len(in.Data) > MaxRouteBody || len(in.Body) > MaxRouteBody:
		return usage("a body of %d bytes: at most %d MiB", max(len(in.Data), len(in.Body)), MaxRouteBody>>20)
	case strings.ContainsRune(in.Fulfill, 0) || len(in.Fulfill) > 4096 || (in.Fulfill != "" && filepath.Base(in.Fulfill) == "."):
		return usage("%s %q: want a file name", fld("fulfill"), in.Fulfill)
	}
	for _, h := range in.Headers {
		if _, err := routespec.ParseHeader(h); err != nil {
			return usage("%s: %v", fld("headers"), err)
		}
	}
	return nil
}

// RouteClearIn is the input of route clear.
type RouteClearIn struct {
	Pattern string `json:"pattern,omitempty" arg:"[PATTERN]" help:"the route's pattern, as routes lists it (none: every route of the tab)"`
}

// Validate bounds the pattern.
func (in *RouteClearIn) Validate() error {
	if len(in.Pattern) > routespec.MaxPattern {
		return usage("%s: at most %d bytes", fld("pattern"), routespec.MaxPattern)
	}
	return nil
}

// NetworkIn is the input of network: the session's requests, or with a
// HAR file the caller's tab's captured traffic (network start). The CLI
// writes FILE itself (any path its user names, never overwritten); other
// clients name a new file of the session's files.
type NetworkIn struct {
	Surface string `json:"surface_id,omitempty" flag:"surface" meta:"ID" help:"only records from this surface (records whose surface is unknown are left out); with {field:har}, the tab to write"`
	Clear   bool   `json:"clear,omitempty" flag:"clear" help:"forget the records after printing them (with {field:har}: start the capture afresh)"`
	HAR     string `json:"har,omitempty" flag:"har" meta:"FILE" help:"write the tab's traffic captured since network start to FILE, as HAR 1.2 (bodies up to 64 KiB each, 8 MiB in all)" mcphelp:"write the tab's traffic captured since action start to this new file of the session's files, as HAR 1.2 (bodies up to 64 KiB each, 8 MiB in all)"`
	// Data asks for the HAR in the reply (the CLI's, which writes FILE).
	Data bool `json:"data,omitempty" mcp:"-" cli:"set with --har: the CLI writes FILE"`
}

// Validate checks the file's name.
func (in *NetworkIn) Validate() error {
	if strings.ContainsRune(in.HAR, 0) || len(in.HAR) > 4096 || (in.HAR != "" && filepath.Base(in.HAR) == ".") {
		return usage("%s %q: want a file name", fld("har"), in.HAR)
	}
	if in.Data && in.HAR == "" {
		return usage("%s needs %s", fld("data"), fld("har"))
	}
	if len(in.Surface) > 64 {
		return usage("%s: at most 64 characters", fld("surface_id"))
	}
	return nil
}

// CaptureIn names the tab whose traffic network start and stop capture.
type CaptureIn struct {
	Surface string `json:"surface_id,omitempty" flag:"surface" meta:"ID" help:"the tab (default: your current one)"`
}

// NamedTab is the tab the input names ("" for the caller's own).
func (in *CaptureIn) NamedTab() string { return in.Surface }

// Validate bounds the id.
func (in *CaptureIn) Validate() error {
	if len(in.Surface) > 64 {
		return usage("%s: at most 64 characters", fld("surface_id"))
	}
	return nil
}

// The outputs.
type (
	RoutesOut  = wire.RoutesOut
	CaptureOut = wire.CaptureOut
)

func networkOps() []*Op {
	return []*Op{
		describe[RouteIn, RoutesOut]("route", "mock (--fulfill FILE, --body TEXT), block (--abort) or rewrite (--continue --header K:V) your tab's requests whose URL matches PATTERN, in its frames and workers too", Write, actTimeout).as(ActNetwork).
			mcp(Tool{Name: "browser_route", Select: "action", Value: "add", Default: true, Desc: "Route your tab's requests whose URL matches a glob (pattern, e.g. **/api/*), in its frames and workers too: answer them (fulfill: a file of the session's files, or body: text; status, headers), fail them (abort) or send them on with headers set (continue); the newest matching route wins. action clear removes one route (pattern) or all, action list lists them."}),
		describe[RouteClearIn, RoutesOut]("route clear", "remove your tab's route of PATTERN, or every route", Write, actTimeout).as(ActNetwork).
			mcp(Tool{Name: "browser_route", Select: "action", Value: "clear"}),
		describe[NoIn, RoutesOut]("routes", "list your tab's routes and how many requests each answered", Read, actTimeout).
			mcp(Tool{Name: "browser_route", Select: "action", Value: "list"}),
		describe[CaptureIn, CaptureOut]("network start", "capture the tab's traffic (its frames' and workers' too) with headers and bodies, for network --har FILE; starts afresh if running", Read, actTimeout).
			mcp(Tool{Name: "browser_network", Select: "action", Value: "start"}),
		describe[CaptureIn, CaptureOut]("network stop", "stop capturing the tab's traffic and drop what was captured", Read, actTimeout).
			mcp(Tool{Name: "browser_network", Select: "action", Value: "stop"}),
	}
}
