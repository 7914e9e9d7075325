package ops

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/wire"
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
	name, err := surface.ParsePartition(*p)
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
		define("open", "open a URL in the current tab (or a new one) and wait for it to load", Write, navTimeout,
			func(ctx context.Context, env Env, in *OpenIn) (*NavOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				var tab *engine.Surface
				// With no tab left at all there is nobody's tab to
				// retarget: open opens one, as a person's browser would.
				if in.OpensTab() || b.TabCount() == 0 {
					if tab, err = surface.NewTabIn(ctx, b, in.Partition); err != nil {
						return nil, err
					}
					env.SetCurrent(tab.ID)
				} else if tab, err = env.Tab(ctx); err != nil {
					return nil, err
				}
				r, err := nav.Navigate(ctx, tab, in.URL)
				if err != nil {
					return nil, err
				}
				return navOut(r), nil
			}).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Core: true, Select: "action", Value: "", Default: true, Desc: "Open a URL (in a new tab with new_tab), or go back, forward or reload, and wait for the load; returns the page's snapshot."}),
		define("back", "go back in the current tab's history", Write, navTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*NavOut, error) { return history(ctx, env, -1) }).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Select: "action", Value: "back"}),
		define("forward", "go forward in the current tab's history", Write, navTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*NavOut, error) { return history(ctx, env, 1) }).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Select: "action", Value: "forward"}),
		define("reload", "reload the current tab", Write, navTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*NavOut, error) {
				tab, err := env.Tab(ctx)
				if err != nil {
					return nil, err
				}
				// A preview reloads under a new token: its file is
				// authorised again, the old address ends.
				if file := env.Previews().Path(tab.PageID()); file != "" && tab.PageID() == tab.ID {
					return preview(ctx, env, tab, file)
				}
				r, err := nav.Reload(ctx, tab)
				if err != nil {
					return nil, err
				}
				return navOut(r), nil
			}).as(ActNavigate).mcp(Tool{Name: "browser_navigate", Select: "action", Value: "reload"}),
		define("tabs", "list the session's tabs", Read, actTimeout,
			func(ctx context.Context, env Env, _ *NoIn) (*TabsOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				cur := env.Current()
				tabs := mapSlice(surface.Tabs(ctx, b), tabOf)
				for i := range tabs {
					tabs[i].Active = tabs[i].ID == cur
					tabs[i].Owner = env.Grants().Owner(env.Session(), tabs[i].ID)
					tabs[i].Session = env.Session()
					mode, epoch := env.Control().Mode(tabs[i].ID)
					if mode == "human" {
						tabs[i].Mode = mode
					}
					tabs[i].Epoch = epoch
					if e, ok := restore.Pending(b, tabs[i].ID); ok {
						tabs[i].Restored = true
						tabs[i].Title, tabs[i].URL = e.Title, e.URL
						if e.Preview != "" {
							tabs[i].URL = "preview of " + e.Preview
						}
					}
				}
				return &TabsOut{Active: cur, Tabs: tabs}, nil
			}).sessionWide().mcp(Tool{Name: "browser_tabs", Core: true, Select: "action", Value: "list", Default: true, Desc: "List tabs, or open (new), close or select one."}),
		define("tab new", "open a new tab (at a URL) and make it your current one", Write, navTimeout,
			func(ctx context.Context, env Env, in *TabNewIn) (*TabOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				tab, err := surface.NewTabIn(ctx, b, in.Partition)
				if err != nil {
					return nil, err
				}
				env.SetCurrent(tab.ID)
				out := &TabOut{Tab: wire.Tab{ID: tab.ID, URL: tab.URL(), Active: true, Partition: surface.PartitionOf(b, tab)}}
				if in.URL != "" {
					r, err := nav.Navigate(ctx, tab, in.URL)
					if err != nil {
						return nil, err
					}
					out.URL, out.Title = r.URL, r.Title
				}
				return out, nil
			}).sessionWide().as(ActNavigate).mcp(Tool{Name: "browser_tabs", Select: "action", Value: "new"}),
		define("tab close", "close a tab", Write, actTimeout,
			func(ctx context.Context, env Env, in *TabCloseIn) (*TabOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				if in.ID == "" {
					t, err := env.Tab(ctx)
					if err != nil {
						return nil, err
					}
					in.ID = t.PageID()
				}
				if err := surface.CloseTab(ctx, b, in.ID); err != nil {
					return nil, err
				}
				return &TabOut{Tab: wire.Tab{ID: in.ID}, Closed: true}, nil
			}).sessionWide().as(ActClose).mcp(Tool{Name: "browser_tabs", Select: "action", Value: "close"}).mcp(Tool{Name: "browser_close", Default: true, Select: "session", Value: false, Desc: "Close a tab (default: the current one), or the whole session with session: true."}),
		define("tab activate", "bring a tab to the front and act on it from now on", Write, actTimeout,
			func(ctx context.Context, env Env, in *TabIDIn) (*TabOut, error) {
				b, err := env.Browser(ctx)
				if err != nil {
					return nil, err
				}
				tab, err := surface.Activate(ctx, b, in.ID)
				if err != nil {
					return nil, err
				}
				env.SetCurrent(tab.ID)
				return &TabOut{Tab: wire.Tab{ID: tab.ID, Title: tab.Title(), URL: tab.URL(), Active: true}}, nil
			}).sessionWide().as(ActTarget).mcp(Tool{Name: "browser_tabs", Select: "action", Value: "select"}),
	}
}

func history(ctx context.Context, env Env, delta int) (*NavOut, error) {
	tab, err := env.Tab(ctx)
	if err != nil {
		return nil, err
	}
	r, err := nav.History(ctx, tab, delta)
	if err != nil {
		return nil, err
	}
	return navOut(r), nil
}
