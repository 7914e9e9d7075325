package ops

import (
	"github.com/loupe-dev/loupe/internal/partition"
)

// OpenIn is the input of open.
type OpenIn struct {
	URL    string `json:"url" arg:"URL" help:"address to open (a bare host gets https://, localhost http://)"`
	NewTab bool   `json:"new_tab,omitempty" flag:"new-tab" help:"open in a new tab and make it active"`
	// Partition opens the new tab there (a partition implies a new tab: a
	// tab never changes partition).
	Partition string `json:"partition,omitempty" flag:"partition" meta:"NAME" help:"open in a new tab of this partition: persist (the session's profile, the default) or temp:NAME (in memory, gone with its last tab)"`
}

// Validate checks and completes the URL and the partition.
func (in *OpenIn) Validate() error {
	u, err := NormalizeURL(in.URL)
	if err != nil {
		return err
	}
	in.URL = u
	return checkPartition(&in.Partition)
}

// checkPartition checks a partition name and writes it in full.
func checkPartition(p *string) error {
	if *p == "" {
		return nil
	}
	name, err := partition.Parse(*p)
	if err != nil {
		return usage("%s: %v", fld("partition"), err)
	}
	*p = name
	return nil
}

// NoIn is the input of operations without arguments.
type NoIn struct{}

// TabIDIn names a tab.
type TabIDIn struct {
	ID string `json:"surface_id" arg:"ID" help:"surface id of the tab, as listed by tabs (s1, s2, …)"`
}

// SwitchTo is the tab activate makes current.
func (in *TabIDIn) SwitchTo() string { return in.ID }

// Validate checks the id is given.
func (in *TabIDIn) Validate() error {
	if in.ID == "" {
		return usage("missing %s (a tab id from tabs)", fld("surface_id"))
	}
	return nil
}

// TabCloseIn names the tab to close; none is the caller's current one.
type TabCloseIn struct {
	ID string `json:"surface_id,omitempty" arg:"[ID]" help:"surface id of the tab (default: the current one)"`
}

// Target is the tab the input names ("": the caller's own).
func (in *TabCloseIn) Target() string { return in.ID }

// NamedTab is the tab tab close names ("" for the caller's own).
func (in *TabCloseIn) NamedTab() string { return in.ID }

// NamedTab is the tab tab activate selects.
func (in *TabIDIn) NamedTab() string { return in.ID }

// NavigatesTo is the address open opens.
func (in *OpenIn) NavigatesTo() string { return in.URL }

// NavigatesTo is the address tab new opens ("" for a blank tab).
func (in *TabNewIn) NavigatesTo() string { return in.URL }

// OpensTab is true for tab new.
func (in *TabNewIn) OpensTab() bool { return true }

// OpensTab says whether open opens a new tab.
func (in *OpenIn) OpensTab() bool { return in.NewTab || in.Partition != "" }

// Replaces: open in the caller's tab shows another document there.
func (in *OpenIn) Replaces() bool { return !in.OpensTab() }

// TabNewIn is the input of tab new.
type TabNewIn struct {
	URL       string `json:"url,omitempty" arg:"[URL]" help:"address to open in the new tab"`
	Partition string `json:"partition,omitempty" flag:"partition" meta:"NAME" help:"the new tab's partition: persist (the session's profile, the default) or temp:NAME (in memory, gone with its last tab)"`
}

// Validate checks the optional URL and partition.
func (in *TabNewIn) Validate() error {
	if err := checkPartition(&in.Partition); err != nil {
		return err
	}
	if in.URL == "" {
		return nil
	}
	u, err := NormalizeURL(in.URL)
	in.URL = u
	return err
}

func navOps() []*Op {
	return []*Op{
		describe[OpenIn, NavOut]("open", "open a URL in the current tab (or a new one) and wait for it to load", Write, navTimeout).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Core: true, Select: "action", Value: "", Default: true, Desc: "Open a URL (in a new tab with new_tab), or go back, forward or reload, and wait for the load; returns the page's snapshot."}),
		describe[NoIn, NavOut]("back", "go back in the current tab's history", Write, navTimeout).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Select: "action", Value: "back"}),
		describe[NoIn, NavOut]("forward", "go forward in the current tab's history", Write, navTimeout).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Select: "action", Value: "forward"}),
		describe[NoIn, NavOut]("reload", "reload the current tab", Write, navTimeout).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Select: "action", Value: "reload"}),
		describe[NoIn, TabsOut]("tabs", "list the session's tabs", Read, actTimeout).sessionWide().mcp(Tool{Name: "browser_tabs", Core: true, Select: "action", Value: "list", Default: true, Desc: "List tabs, or open (new), close or select one."}),
		describe[TabNewIn, TabOut]("tab new", "open a new tab (at a URL) and make it your current one", Write, navTimeout).sessionWide().as(ActNavigate).mcp(Tool{Name: "browser_tabs", Select: "action", Value: "new"}),
		describe[TabCloseIn, TabOut]("tab close", "close a tab", Write, actTimeout).sessionWide().as(ActClose).mcp(Tool{Name: "browser_tabs", Select: "action", Value: "close"}).mcp(Tool{Name: "browser_close", Default: true, Select: "session", Value: false, Desc: "Close a tab (default: the current one), or the whole session with session: true."}),
		describe[TabIDIn, TabOut]("tab activate", "bring a tab to the front and act on it from now on", Write, actTimeout).sessionWide().as(ActTarget).mcp(Tool{Name: "browser_tabs", Select: "action", Value: "select"}),
	}
}
