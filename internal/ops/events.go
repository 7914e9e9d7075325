package ops

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/internal/engine/eventlog"
)

// LogIn is the input of console and network.
type LogIn struct {
	Surface string `json:"surface_id,omitempty" flag:"surface" meta:"ID" help:"only records from this surface (records whose surface is unknown are left out)"`
	Clear   bool   `json:"clear,omitempty" flag:"clear" help:"forget the records after printing them"`
}

// ConsoleOut lists console messages.
type ConsoleOut struct {
	Records []eventlog.ConsoleRecord `json:"records"`
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

// NetworkOut lists requests.
type NetworkOut struct {
	Records []eventlog.NetworkRecord `json:"records"`
}

// Text is one line a request: "[s1] GET 200 12.3ms Document url".
func (o *NetworkOut) Text() string {
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

// DialogsIn is the input of dialogs: with a policy flag it changes how
// later dialogs are answered.
type DialogsIn struct {
	Accept     bool   `json:"accept,omitempty" flag:"accept" help:"accept every later dialog (OK, leave the page)"`
	Dismiss    bool   `json:"dismiss,omitempty" flag:"dismiss" help:"dismiss every later dialog (Cancel, stay on the page)"`
	Auto       bool   `json:"auto,omitempty" flag:"auto" help:"back to the default: accept alerts and beforeunload, dismiss confirm and prompt"`
	PromptText string `json:"prompt_text,omitempty" flag:"prompt-text" meta:"TEXT" help:"text to answer prompts with (with {field:accept})"`
}

// Validate allows one policy at a time.
func (in *DialogsIn) Validate() error {
	n := 0
	for _, b := range []bool{in.Accept, in.Dismiss, in.Auto} {
		if b {
			n++
		}
	}
	if n > 1 {
		return usage("give at most one of %s, %s, %s", fld("accept"), fld("dismiss"), fld("auto"))
	}
	if in.PromptText != "" && !in.Accept {
		return usage("%s needs %s", fld("prompt_text"), fld("accept"))
	}
	return nil
}

// Writes reports whether the call changes the policy.
func (in *DialogsIn) Writes() bool { return in.Accept || in.Dismiss || in.Auto }

// DialogsOut lists dialogs and the policy now in force.
type DialogsOut struct {
	Policy  eventlog.DialogPolicy   `json:"policy"`
	Records []eventlog.DialogRecord `json:"records"`
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func eventOps() []*Op {
	return []*Op{
		define("console", "list console messages of the session's pages, with their surface", Read, actTimeout,
			func(ctx context.Context, env Env, in *LogIn) (*ConsoleOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				return &ConsoleOut{Records: b.Console(in.Surface, in.Clear)}, nil
			}).mcp(Tool{Name: "browser_console", Desc: "Console messages of the session, with the surface each came from."}),
		define("network", "list network requests with status and timing, with their surface", Read, actTimeout,
			func(ctx context.Context, env Env, in *LogIn) (*NetworkOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				return &NetworkOut{Records: b.Network(in.Surface, in.Clear)}, nil
			}).mcp(Tool{Name: "browser_network", Desc: "Network requests of the session with status and timing."}),
		define("dialogs", "list JavaScript dialogs and how they were answered; set how later ones are", Read, actTimeout,
			func(ctx context.Context, env Env, in *DialogsIn) (*DialogsOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				switch {
				case in.Accept:
					b.SetDialogPolicy(eventlog.DialogPolicy{Mode: "accept", PromptText: in.PromptText})
				case in.Dismiss:
					b.SetDialogPolicy(eventlog.DialogPolicy{Mode: "dismiss"})
				case in.Auto:
					b.SetDialogPolicy(eventlog.DialogPolicy{Mode: "auto"})
				}
				return &DialogsOut{Policy: b.DialogPolicy(), Records: b.Dialogs()}, nil
			}).as(ActDialogs).mcp(Tool{Name: "browser_dialogs", Desc: "JavaScript dialogs seen and how they were answered; set how later ones are."}),
	}
}
