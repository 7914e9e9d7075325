package ops

import (
	"github.com/loupe-dev/loupe/internal/wire"
)

// PageIn names a tab; none is the caller's current one.
type PageIn struct {
	ID string `json:"surface_id,omitempty" arg:"[SURFACE_ID]" help:"the tab (a surface id from tabs; default: your current one)"`
}

// Target is the tab the input names ("": the caller's current one).
func (in *PageIn) Target() string { return in.ID }

// NamedTab is the tab the input names ("" for the caller's own).
func (in *PageIn) NamedTab() string { return in.ID }

// ControlOut says who drives a tab now.
type ControlOut = wire.ControlOut

func controlOps() []*Op {
	why := "a person takes a tab over and hands it back; an agent may do neither"
	return []*Op{
		describe[PageIn, ControlOut]("takeover", "hand a tab to a person: agents can neither read nor act on it until it is resumed", Write, actTimeout).as(ActControl).sessionWide().noMCP(why),
		describe[PageIn, ControlOut]("resume", "hand a tab back to the agents: its epoch moves on and every earlier ref of it is stale", Write, actTimeout).as(ActControl).sessionWide().noMCP(why),
	}
}
