package ops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/electron"
	"github.com/loupe-dev/loupe/internal/engine"
)

// AttachIn is the input of attach.
type AttachIn struct {
	CDP string `json:"cdp" flag:"cdp" meta:"URL" help:"DevTools endpoint: http://host:port (from --remote-debugging-port) or a ws:// URL"`
	// ElectronMain is the Electron main process's Node inspector; with it
	// loupe tells windows, WebContentsViews and webviews apart.
	ElectronMain string `json:"electron_main,omitempty" flag:"electron-main" meta:"URL" help:"Electron main process inspector (http://127.0.0.1:9229, from --inspect) to classify windows, views and webviews"`
}

// Validate checks the endpoint is given.
func (in *AttachIn) Validate() error {
	if in.CDP == "" {
		return usage("missing %s (e.g. http://127.0.0.1:9222)", fld("cdp"))
	}
	return nil
}

// SessionOut describes a session.
type SessionOut struct {
	Session  string `json:"session"`
	Browser  string `json:"browser,omitempty"`
	Attached bool   `json:"attached,omitempty"`
	Closed   bool   `json:"closed,omitempty"`
	Active   string `json:"active,omitempty"`
}

// Text is one line.
func (o *SessionOut) Text() string {
	switch {
	case o.Closed:
		return "closed session " + o.Session
	case o.Attached:
		return fmt.Sprintf("session %s attached to %s (active tab %s)", o.Session, o.Browser, o.Active)
	}
	return fmt.Sprintf("session %s: %s", o.Session, o.Browser)
}

func sessionOps() []*Op {
	closeOp := define("close", "close the session and its browser", Write, launchTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*SessionOut, error) {
			had, err := env.Close(ctx)
			if err != nil {
				return nil, err
			}
			out := &SessionOut{Session: env.Session(), Closed: true}
			if !had {
				out.Closed = false
				out.Browser = "no browser was running"
			}
			return out, nil
		}).as(ActClose).mcp(Tool{Name: "browser_close", Select: "session", Value: true})
	closeOp.NoBrowser = true
	attach := define("attach", "attach the session to a running browser or Electron app over CDP", Write, launchTimeout,
		func(ctx context.Context, env Env, in *AttachIn) (*SessionOut, error) {
			var classify engine.Classifier
			if in.ElectronMain != "" {
				classify = electronClassifier(in.ElectronMain)
				// Ask once before attaching: a wrong endpoint changes nothing.
				if _, err := classify(ctx); err != nil {
					return nil, err
				}
			}
			b, err := env.Attach(ctx, in.CDP)
			if err != nil {
				return nil, err
			}
			if classify != nil {
				if err := b.SetClassifier(ctx, classify); err != nil {
					return nil, err
				}
			}
			t, err := env.Tab(ctx)
			if err != nil {
				return nil, err
			}
			return &SessionOut{Session: env.Session(), Browser: b.Product(), Attached: true, Active: t.ID}, nil
		}).as(ActSession).noMCP("an MCP server attaches when it starts (loupe mcp --cdp URL); swapping the browser under a running agent would strand its refs")
	attach.NoBrowser = true
	return []*Op{closeOp, attach, doctorOp()}
}

// DoctorOut is the capability matrix of the session's browser connection.
type DoctorOut struct {
	Session   string `json:"session"`
	Browser   string `json:"browser"`
	Version   string `json:"version"`
	Transport string `json:"transport"` // pipe (loupe launched it) or websocket (attached)
	Endpoint  string `json:"endpoint,omitempty"`
	PID       int    `json:"pid,omitempty"`
	Electron  bool   `json:"electron"`
	// Features says which features this connection supports.
	Features map[string]bool `json:"features"`
}

// Text is the browser line, then one line a feature.
func (o *DoctorOut) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "browser    %s %s\ntransport  %s", o.Browser, o.Version, o.Transport)
	if o.Endpoint != "" {
		b.WriteString(" " + o.Endpoint)
	}
	if o.PID != 0 {
		fmt.Fprintf(&b, " (pid %d)", o.PID)
	}
	names := make([]string, 0, len(o.Features))
	for k := range o.Features {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		mark := "no"
		if o.Features[k] {
			mark = "yes"
		}
		fmt.Fprintf(&b, "\n%-26s %s", k, mark)
	}
	return b.String()
}

func doctorOp() *Op {
	return define("doctor", "report the browser, its version, the transport and which features it supports", Read, launchTimeout,
		func(ctx context.Context, env Env, _ *NoIn) (*DoctorOut, error) {
			b, err := env.Browser(ctx)
			if err != nil {
				return nil, err
			}
			name, version, _ := strings.Cut(b.Product(), "/")
			return &DoctorOut{
				Session: env.Session(), Browser: name, Version: version,
				Transport: b.Transport(), Endpoint: b.Endpoint(), PID: b.PID(), Electron: b.Electron(),
				Features: b.Features(),
			}, nil
		}).mcp(Tool{Name: "browser_doctor", Desc: "The browser, its version, the transport and which features this connection supports."})
}

// electronClassifier classifies page targets from the Electron main
// process's own metadata (see package electron), never from URLs or titles.
func electronClassifier(endpoint string) engine.Classifier {
	return func(ctx context.Context) (map[string]engine.Classification, error) {
		cs, err := electron.Inspect(ctx, endpoint)
		if err != nil {
			e := apitype.Wrap(apitype.TransportUnsupported, err, "Electron main process at %s: %v", endpoint, err)
			e.Hint = "start the app with --inspect=PORT and pass --electron-main http://127.0.0.1:PORT (see docs/electron.md)"
			return nil, e
		}
		out := map[string]engine.Classification{}
		for tid, c := range electron.Classify(cs) {
			out[tid] = engine.Classification{Kind: c.Kind, ParentTargetID: c.ParentTargetID}
		}
		return out, nil
	}
}
