package ops

import (
	"context"
	"fmt"
)

// AttachIn is the input of attach.
type AttachIn struct {
	CDP string `json:"cdp" flag:"cdp" help:"DevTools endpoint: http://host:port (from --remote-debugging-port) or a ws:// URL"`
}

// Validate checks the endpoint is given.
func (in *AttachIn) Validate() error {
	if in.CDP == "" {
		return usage("missing --cdp URL (e.g. http://127.0.0.1:9222)")
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
		})
	closeOp.NoBrowser = true
	attach := define("attach", "attach the session to a running browser or Electron app over CDP", Write, launchTimeout,
		func(ctx context.Context, env Env, in *AttachIn) (*SessionOut, error) {
			b, err := env.Attach(ctx, in.CDP)
			if err != nil {
				return nil, err
			}
			return &SessionOut{Session: env.Session(), Browser: b.Product(), Attached: true, Active: b.Active()}, nil
		})
	attach.NoBrowser = true
	return []*Op{closeOp, attach}
}
