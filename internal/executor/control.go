package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/settings"
)

// controlStage refuses a browser write while the person has turned
// browser control off (controlEnabled false: DENIED, not executed). A
// person's own commands (settings, policy, take-over) are not browser
// writes; reads pass.
type controlStage struct{ settings *settings.Store }

func (controlStage) name() string { return "control" }

func (s controlStage) enter(_ context.Context, c *call) (func(*outcome), error) {
	if !c.isWrite() || !needsGrant(c.op) {
		return nil, nil
	}
	v, err := s.settings.Get()
	if err != nil {
		return nil, apitype.Wrap(apitype.Internal, err, "%v", err)
	}
	if v.ControlEnabled {
		return nil, nil
	}
	return nil, apitype.Errorf(apitype.Denied, "browser control is turned off (setting controlEnabled is false): no write is sent").
		Fix("a person turns it back on ({1})", apitype.Step{Op: "settings set", Args: map[string]string{"key": "controlEnabled", "value": "true"}})
}
