package ops

// QueryIn is the input of query.
type QueryIn struct {
	Role    string `json:"role,omitempty" flag:"role" help:"role as snapshots show it: button, link, textbox, …"`
	Name    string `json:"name,omitempty" flag:"name" help:"accessible name contains this (case-insensitive)"`
	Text    string `json:"text,omitempty" flag:"text" help:"the innermost elements whose text contains this"`
	Exact   bool   `json:"exact,omitempty" flag:"exact" help:"the name must match whole"`
	Within  string `json:"within,omitempty" flag:"within" meta:"TARGET" help:"search only inside this element (ref or locator)"`
	FrameOf string `json:"frame_of,omitempty" flag:"frame-of" meta:"TARGET" help:"search only the frame holding this element (ref or locator)"`
	Limit   int    `json:"limit,omitempty" flag:"limit" meta:"N" help:"list at most N matches (default 20; the count is always exact)"`
}

// Validate needs something to look for.
func (in *QueryIn) Validate() error {
	if in.Role == "" && in.Name == "" && in.Text == "" {
		return usage("give %s, %s or %s", fld("role"), fld("name"), fld("text"))
	}
	if in.Limit < 0 {
		return usage("%s takes a positive number", fld("limit"))
	}
	if err := checkTarget("within", in.Within, false); err != nil {
		return err
	}
	return checkTarget("frame_of", in.FrameOf, false)
}

// DownloadsIn is the input of downloads.
type DownloadsIn struct {
	Wait bool `json:"wait,omitempty" flag:"wait" help:"return the next finished download not returned before, waiting for one if none has finished"`
	// Timeout bounds the wait (default: the operation's 30 s).
	Timeout Millis `json:"timeout_ms,omitempty" cli:"the global --timeout bounds the call" help:"how long to wait (default 30s; the CLI bounds it with the global --timeout)" mcphelp:"how long to wait, in milliseconds (default 30000)"`
}

func findOps() []*Op {
	return []*Op{
		describe[QueryIn, QueryOut]("query", "find elements by role, name or text; reports every match and whether it is ambiguous", Read, actTimeout).mcp(Tool{Name: "browser_query", Core: true, Desc: "Find elements by role, name or text (in a container or a ref's frame); lists each match with its ref and says when ambiguous."}),
		describe[DownloadsIn, DownloadsOut]("downloads", "list the session's downloads, or wait for one to finish", Read, navTimeout).sessionWide().mcp(Tool{Name: "browser_download", Desc: "List downloads, or wait for one to finish; files land in the session's files/downloads."}),
	}
}
