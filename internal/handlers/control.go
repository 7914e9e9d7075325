package handlers

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/grants"
	"github.com/loupe-dev/loupe/internal/input"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// pageOf is the tab an input names, or the caller's current one's.
func pageOf(ctx context.Context, c Caller, id string) (*engine.Surface, error) {
	if id == "" {
		return c.Tab(ctx)
	}
	b, err := c.Browser(ctx)
	if err != nil {
		return nil, err
	}
	return b.Surface(ctx, id)
}

func controlHandlers() map[string]Handler {
	return map[string]Handler{
		"takeover": Func(func(ctx context.Context, d *Deps, in *ops.PageIn) (*ops.ControlOut, error) {
			t, err := pageOf(ctx, d.Caller, in.ID)
			if err != nil {
				return nil, err
			}
			epoch := d.Control.TakeOver(t.PageID())
			return &ops.ControlOut{SurfaceID: t.PageID(), Mode: "human", Epoch: epoch}, nil
		}),
		"resume": Func(func(ctx context.Context, d *Deps, in *ops.PageIn) (*ops.ControlOut, error) {
			t, err := pageOf(ctx, d.Caller, in.ID)
			if err != nil {
				return nil, err
			}
			epoch, _ := d.Control.Resume(t.PageID())
			return &ops.ControlOut{SurfaceID: t.PageID(), Mode: "agent", Epoch: epoch, StaleRefs: t.ForgetRefs()}, nil
		}),
	}
}

func humanHandlers() map[string]Handler {
	return map[string]Handler{
		"human-input": Func(func(ctx context.Context, d *Deps, in *ops.HumanInputIn) (*ops.HumanInputOut, error) {
			b, err := d.Caller.Browser(ctx)
			if err != nil {
				return nil, err
			}
			t, err := b.Surface(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			page, err := b.Surface(ctx, t.PageID())
			if err != nil {
				return nil, err
			}
			if mode, _ := d.Control.Mode(page.ID); mode != "human" {
				return nil, apitype.Errorf(apitype.Denied, "tab %s is the agents' now; a person's input goes to a tab they have taken over: nothing was sent", page.ID).
					Fix("take it over first ({1})", apitype.Step{Op: "takeover", Args: map[string]string{"surface_id": page.ID}})
			}
			s := page.Session()
			button, chord := in.Parsed()
			switch in.Kind {
			case "click":
				err = input.Click(ctx, s, in.X, in.Y, button, in.Clicks, 0)
			case "down":
				err = input.LeftDown(ctx, s, in.X, in.Y)
			case "up":
				err = input.LeftUp(ctx, s, in.X, in.Y)
			case "move":
				err = input.Move(ctx, s, in.X, in.Y, 0)
			case "wheel":
				err = input.Wheel(ctx, s, in.X, in.Y, in.DX, in.DY)
			case "key":
				err = input.Press(ctx, s, chord)
			case "text":
				err = input.Type(ctx, s, string(in.Text))
			}
			if err != nil {
				return nil, err
			}
			return &ops.HumanInputOut{SurfaceID: page.ID, Kind: in.Kind}, nil
		}),
	}
}

func taskHandlers() map[string]Handler {
	return map[string]Handler{
		"tasks": Tasks(func(ctx context.Context, g Grants, _ *ops.NoIn) (*ops.TasksOut, error) {
			return &ops.TasksOut{Grants: wireGrants(g.List())}, nil
		}),
		"task end": Tasks(func(ctx context.Context, g Grants, in *ops.TaskIDIn) (*ops.TaskEndOut, error) {
			return &ops.TaskEndOut{Task: in.Task, Revoked: wireGrants(g.End(in.Task))}, nil
		}),
	}
}

func wireGrants(gs []grants.Grant) []wire.Grant {
	out := make([]wire.Grant, len(gs))
	for i, g := range gs {
		out[i] = wire.Grant{ID: g.ID, Session: g.Session, Task: g.Task, Generation: g.Generation, Tabs: g.Tabs, Expires: g.Expires}
	}
	return out
}

func dashboardHandlers() map[string]Handler {
	return map[string]Handler{
		"dashboard": Func(func(ctx context.Context, d *Deps, in *ops.DashboardIn) (*ops.DashboardOut, error) {
			if d.Dashboard == nil {
				return nil, apitype.Errorf(apitype.TransportUnsupported, "this process serves no dashboard; the daemon does").
					Fix("run it from the CLI ({1})", apitype.Step{Op: "dashboard"})
			}
			url, err := d.Dashboard.Serve(in.Addr)
			if err != nil {
				return nil, apitype.Errorf(apitype.BadInput, "%v", err)
			}
			return &ops.DashboardOut{URL: url}, nil
		}),
	}
}
