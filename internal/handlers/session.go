package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/chromeprofile"
	"github.com/loupe-dev/loupe/internal/electron"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/ops"
)

func sessionHandlers() map[string]Handler {
	return map[string]Handler{
		"close": Func(func(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.SessionOut, error) {
			had, err := d.Browsers.Close(ctx)
			if err != nil {
				return nil, err
			}
			out := &ops.SessionOut{Session: d.Session, Closed: true}
			if !had {
				out.Closed = false
				out.Browser = "no browser was running"
			}
			return out, nil
		}),
		"attach": Func(attach),
		"doctor": Func(func(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.DoctorOut, error) {
			b, err := d.Caller.Browser(ctx)
			if err != nil {
				return nil, err
			}
			name, version, _ := strings.Cut(b.Product(), "/")
			return &ops.DoctorOut{
				Session: d.Session, Browser: name, Version: version,
				Transport: status.Transport(b), Endpoint: b.Endpoint(), PID: b.PID(), Binary: b.Binary(), Electron: b.Electron(),
				Features: status.Features(b), Unverified: status.Unverified(b),
			}, nil
		}),
	}
}

// attach connects the session to a running browser: a DevTools endpoint,
// or the person's own Chrome (whose tabs stay theirs), classified by an
// Electron main process when one is named; or to a browser it takes from
// a Selenium Grid.
func attach(ctx context.Context, d *Deps, in *ops.AttachIn) (*ops.SessionOut, error) {
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
	var b *engine.Browser
	var err error
	if in.Grid != "" {
		b, err = d.Browsers.AttachGrid(ctx, in.Grid, in.Capabilities)
	} else {
		b, err = d.Browsers.Attach(ctx, endpoint)
	}
	if err != nil {
		return nil, err
	}
	if in.Chrome {
		d.Browsers.MarkPersonal() // its tabs are the person's
	}
	if classify != nil {
		if err := b.SetClassifier(ctx, classify); err != nil {
			return nil, err
		}
	}
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	return &ops.SessionOut{Session: d.Session, Browser: b.Product(), Attached: true, Active: t.ID}, nil
}

// chromeEndpoint finds the DevTools endpoint of the person's running
// Chrome, or says in one line how to turn remote debugging on.
func chromeEndpoint(in *ops.AttachIn) (string, error) {
	dir := in.Profile
	if dir == "" {
		ch := in.Channel
		if ch == "" {
			ch = "stable"
		}
		d, err := chromeprofile.UserDataDir(ch)
		if err != nil {
			return "", usage("%v", err)
		}
		dir = d
	}
	ws, err := chromeprofile.ActiveEndpoint(dir)
	if errors.Is(err, chromeprofile.ErrNoDebugging) {
		return "", apitype.Errorf(apitype.BrowserStart, "no Chrome with remote debugging on uses %s", dir).
			Fix("turn it on in Chrome at chrome://inspect/#remote-debugging (or start Chrome with --remote-debugging-port=9222), then attach again")
	}
	if err != nil {
		return "", apitype.Wrap(apitype.BrowserStart, err, "%v", err)
	}
	return ws, nil
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
