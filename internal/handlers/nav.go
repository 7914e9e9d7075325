package handlers

import (
	"context"
	"strings"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/restore"
	"github.com/loupe-dev/loupe/internal/wire"
)

func navHandlers() map[string]Handler {
	history := func(delta int) Handler {
		return Tab(func(ctx context.Context, t *engine.Surface, _ *ops.NoIn) (*ops.NavOut, error) {
			r, err := nav.History(ctx, t, delta)
			if err != nil {
				return nil, err
			}
			return navOut(r), nil
		})
	}
	return map[string]Handler{
		"open": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, in *ops.OpenIn) (*ops.NavOut, error) {
			var t *engine.Surface
			var err error
			// With no tab left at all there is nobody's tab to
			// retarget: open opens one, as a person's browser would.
			if in.OpensTab() || b.TabCount() == 0 {
				if t, err = surface.NewTabIn(ctx, b, in.Partition); err != nil {
					return nil, err
				}
				c.SetCurrent(t.ID)
			} else if t, err = c.Tab(ctx); err != nil {
				return nil, err
			}
			r, err := nav.Navigate(ctx, t, in.URL)
			if err != nil {
				return nil, err
			}
			return navOut(r), nil
		}),
		"back":    history(-1),
		"forward": history(1),
		"reload": Func(func(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.NavOut, error) {
			t, err := d.Caller.Tab(ctx)
			if err != nil {
				return nil, err
			}
			// A preview reloads under a new token: its file is
			// authorised again, the old address ends.
			if file := d.Previews.Path(t.PageID()); file != "" && t.PageID() == t.ID {
				return preview(ctx, d, t, file)
			}
			r, err := nav.Reload(ctx, t)
			if err != nil {
				return nil, err
			}
			return navOut(r), nil
		}),
		"tabs": Func(tabs),
		"tab new": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, in *ops.TabNewIn) (*ops.TabOut, error) {
			t, err := surface.NewTabIn(ctx, b, in.Partition)
			if err != nil {
				return nil, err
			}
			c.SetCurrent(t.ID)
			out := &ops.TabOut{Tab: wire.Tab{ID: t.ID, URL: t.URL(), Active: true, Partition: surface.PartitionOf(b, t)}}
			if in.URL != "" {
				r, err := nav.Navigate(ctx, t, in.URL)
				if err != nil {
					return nil, err
				}
				out.URL, out.Title = r.URL, r.Title
			}
			return out, nil
		}),
		"tab close": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, in *ops.TabCloseIn) (*ops.TabOut, error) {
			id := in.ID
			if id == "" {
				t, err := c.Tab(ctx)
				if err != nil {
					return nil, err
				}
				id = t.PageID()
			}
			own := id == c.Current()
			if err := surface.CloseTab(ctx, b, id); err != nil {
				return nil, err
			}
			out := &ops.TabOut{Tab: wire.Tab{ID: id}, Closed: true}
			if own {
				// The caller closed its own current tab: it goes back to
				// the tab it was on before, and is told which.
				open := map[string]bool{}
				for _, ti := range surface.Tabs(ctx, b) {
					open[ti.ID] = true
				}
				out.Current = c.Back(func(id string) bool { return open[id] })
				out.OwnClosed = true
			}
			return out, nil
		}),
		"tab activate": OnCaller(func(ctx context.Context, c Caller, b *engine.Browser, in *ops.TabIDIn) (*ops.TabOut, error) {
			t, err := surface.Activate(ctx, b, in.ID)
			if err != nil {
				return nil, err
			}
			c.SetCurrent(t.ID)
			return &ops.TabOut{Tab: wire.Tab{ID: t.ID, Title: t.Title(), URL: t.URL(), Active: true}}, nil
		}),
	}
}

// tabs lists the session's tabs with who owns and who drives each.
func tabs(ctx context.Context, d *Deps, _ *ops.NoIn) (*ops.TabsOut, error) {
	b, err := d.Caller.Browser(ctx)
	if err != nil {
		return nil, err
	}
	cur := d.Caller.Current()
	list := mapSlice(surface.Tabs(ctx, b), tabOf)
	for i := range list {
		list[i].Active = list[i].ID == cur
		list[i].Owner = d.Grants.Owner(d.Session, list[i].ID)
		list[i].Session = d.Session
		mode, epoch := d.Control.Mode(list[i].ID)
		if mode == "human" {
			list[i].Mode = mode
		}
		list[i].Epoch = epoch
		if e, ok := restore.Pending(b, list[i].ID); ok {
			list[i].Restored = true
			list[i].Title, list[i].URL = e.Title, e.URL
			if e.Preview != "" {
				list[i].URL = "preview of " + e.Preview
			}
		}
	}
	return &ops.TabsOut{Active: cur, Tabs: list}, nil
}

// preview authorises the file for the caller's current tab and opens it
// there.
func preview(ctx context.Context, d *Deps, t *engine.Surface, file string) (*ops.NavOut, error) {
	url, err := d.Previews.Allow(file, t.PageID(), d.Task, func(prefix string) bool {
		select {
		case <-t.Closed():
			return false
		default:
		}
		return strings.HasPrefix(t.URL(), prefix)
	})
	if err != nil {
		return nil, usage("%v", err)
	}
	r, err := nav.Navigate(ctx, t, url)
	if err != nil {
		return nil, err
	}
	return navOut(r), nil
}

func previewHandlers() map[string]Handler {
	return map[string]Handler{
		"preview": Func(func(ctx context.Context, d *Deps, in *ops.PreviewIn) (*ops.NavOut, error) {
			file := in.Path
			if !in.Named {
				p, err := d.Files.Path(in.Path)
				if err != nil {
					return nil, err
				}
				file = p
			}
			t, err := d.Caller.Tab(ctx)
			if err != nil {
				return nil, err
			}
			return preview(ctx, d, t, file)
		}),
	}
}
