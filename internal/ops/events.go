package ops

// LogIn is the input of console.
type LogIn struct {
	Surface string `json:"surface_id,omitempty" flag:"surface" meta:"ID" help:"only records from this surface (records whose surface is unknown are left out)"`
	Clear   bool   `json:"clear,omitempty" flag:"clear" help:"forget the records after printing them"`
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

func eventOps() []*Op {
	return []*Op{
		describe[NoIn, DiagnosticsOut]("diagnostics", "what went wrong or was slow in the current tab: errors, warnings and exceptions, failed and slow requests, navigation timing, long tasks", Read, actTimeout).mcp(Tool{Name: "browser_diagnostics", Desc: "One compact report of the current tab: console errors and warnings, uncaught exceptions, failed and slow requests, navigation timing and long tasks."}),
		describe[LogIn, ConsoleOut]("console", "list console messages of the session's pages, with their surface", Read, actTimeout).sessionWide().mcp(Tool{Name: "browser_console", Desc: "Console messages of the session, with the surface each came from."}),
		describe[NetworkIn, NetworkOut]("network", "list network requests with status and timing, with their surface; --har FILE writes the tab's traffic captured since network start as HAR 1.2", Read, actTimeout).sessionWide().
			mcp(Tool{Name: "browser_network", Select: "action", Value: "list", Default: true, Desc: "Network requests of the session with status and timing (action list, the default). To record a tab's traffic with headers and bodies: action start, then har: a file name, which writes what was captured since as HAR 1.2 into the session's files; action stop ends it."}),
		describe[DialogsIn, DialogsOut]("dialogs", "list JavaScript dialogs and how they were answered; set how later ones are", Read, actTimeout).sessionWide().as(ActDialogs).mcp(Tool{Name: "browser_dialogs", Desc: "JavaScript dialogs seen and how they were answered; set how later ones are."}),
	}
}
