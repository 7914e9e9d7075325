package ops

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/electron"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/status"
)

// AttachIn is the input of attach.
type AttachIn struct {
	CDP string `json:"cdp,omitempty" flag:"cdp" meta:"URL" help:"DevTools endpoint: http://host:port (from --remote-debugging-port) or a ws:// URL"`
	// Chrome attaches to the person's own running Chrome, found by the
	// DevToolsActivePort its profile has while remote debugging is on.
	Chrome  bool   `json:"chrome,omitempty" flag:"chrome" help:"attach to your own running Chrome (found by its profile's DevToolsActivePort); its tabs stay yours"`
	Channel string `json:"channel,omitempty" flag:"channel" meta:"CHANNEL" help:"with --chrome: stable (default), beta, canary or chromium"`
	Profile string `json:"profile,omitempty" flag:"profile" meta:"DIR" help:"with --chrome: the browser's profile (user data) directory"`
	// ElectronMain is the Electron main process's Node inspector; with it
	// loupe tells windows, WebContentsViews and webviews apart.
	ElectronMain string `json:"electron_main,omitempty" flag:"electron-main" meta:"URL" help:"Electron main process inspector (http://127.0.0.1:9229, from --inspect) to classify windows, views and webviews"`
}

// Validate checks one way to find the browser is given.
func (in *AttachIn) Validate() error {
	switch {
	case in.CDP == "" && !in.Chrome:
		return usage("missing %s (e.g. http://127.0.0.1:9222) or %s", fld("cdp"), fld("chrome"))
	case in.CDP != "" && in.Chrome:
		return usage("give %s or %s, not both", fld("cdp"), fld("chrome"))
	case !in.Chrome && (in.Channel != "" || in.Profile != ""):
		return usage("%s and %s go with %s", fld("channel"), fld("profile"), fld("chrome"))
	case in.Channel != "" && !slices.Contains(chromium.Channels, in.Channel):
		return usage("%s %q: want %s", fld("channel"), in.Channel, strings.Join(chromium.Channels, ", "))
	}
	return nil
}

// chromeEndpoint finds the DevTools endpoint of the person's running
// Chrome, or says in one line how to turn remote debugging on.
func chromeEndpoint(in *AttachIn) (string, error) {
	dir := in.Profile
	if dir == "" {
		ch := in.Channel
		if ch == "" {
			ch = "stable"
		}
		d, err := chromium.UserDataDir(ch)
		if err != nil {
			return "", usage("%v", err)
		}
		dir = d
	}
	ws, err := chromium.ActiveEndpoint(dir)
	if errors.Is(err, chromium.ErrNoDebugging) {
		return "", apitype.Errorf(apitype.BrowserStart, "no Chrome with remote debugging on uses %s", dir).
			Fix("turn it on in Chrome at chrome://inspect/#remote-debugging (or start Chrome with --remote-debugging-port=9222), then attach again")
	}
	if err != nil {
		return "", apitype.Wrap(apitype.BrowserStart, err, "%v", err)
	}
	return ws, nil
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
			endpoint := in.CDP
			if in.Chrome {
				ws, err := chromeEndpoint(in)
				if err != nil {
					return nil, err
				}
				endpoint = ws
			}
			b, err := env.Attach(ctx, endpoint)
			if err != nil {
				return nil, err
			}
			if in.Chrome {
				env.MarkPersonal() // its tabs are the person's
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
