package ops

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/wire"
)

// Control hands tabs between a person and the agents, by the page's
// surface id (see package sessions).
type Control interface {
	TakeOver(page string) int64
	Resume(page string) (epoch int64, ok bool)
	Mode(page string) (mode string, epoch int64)
}

// PageIn names a tab; none is the caller's current one.
type PageIn struct {
	ID string `json:"surface_id,omitempty" arg:"[SURFACE_ID]" help:"the tab (a surface id from tabs; default: your current one)"`
}

// ControlOut says who drives a tab now.
type ControlOut = wire.ControlOut

// pageOf is the tab an input names, or the caller's current one's.
func pageOf(ctx context.Context, env Env, id string) (*engine.Surface, error) {
	if id == "" {
		return env.Tab(ctx)
	}
	b, err := env.Browser(ctx)
	if err != nil {
		return nil, err
	}
	return b.Surface(ctx, id)
}

func controlOps() []*Op {
	why := "a person takes a tab over and hands it back; an agent may do neither"
	takeover := define("takeover", "hand a tab to a person: agents can neither read nor act on it until it is resumed", Write, actTimeout,
		func(ctx context.Context, env Env, in *PageIn) (*ControlOut, error) {
			t, err := pageOf(ctx, env, in.ID)
			if err != nil {
				return nil, err
			}
			epoch := env.Control().TakeOver(t.PageID())
			return &ControlOut{SurfaceID: t.PageID(), Mode: "human", Epoch: epoch}, nil
		}).as(ActControl).sessionWide().noMCP(why)
	resume := define("resume", "hand a tab back to the agents: its epoch moves on and every earlier ref of it is stale", Write, actTimeout,
		func(ctx context.Context, env Env, in *PageIn) (*ControlOut, error) {
			t, err := pageOf(ctx, env, in.ID)
			if err != nil {
				return nil, err
			}
			epoch, _ := env.Control().Resume(t.PageID())
			return &ControlOut{SurfaceID: t.PageID(), Mode: "agent", Epoch: epoch, StaleRefs: t.ForgetRefs()}, nil
		}).as(ActControl).sessionWide().noMCP(why)
	return []*Op{takeover, resume}
}
