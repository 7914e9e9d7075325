package ops

import (
	"context"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/electron"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/status"
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
		}).sessionWide().as(ActClose).mcp(Tool{Name: "browser_close", Select: "session", Value: true})
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
		}).sessionWide().as(ActSession).noMCP("an MCP server attaches when it starts (loupe mcp --cdp URL); swapping the browser under a running agent would strand its refs")
	attach.NoBrowser = true
	return []*Op{closeOp, attach, doctorOp()}
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
				Transport: status.Transport(b), Endpoint: b.Endpoint(), PID: b.PID(), Electron: b.Electron(),
				Features: status.Features(b),
			}, nil
		}).sessionWide().mcp(Tool{Name: "browser_doctor", Desc: "The browser, its version, the transport and which features this connection supports."})
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
