package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// documentStage refuses a write planned on a document its tab no longer
// shows (Request.DocumentToken; STALE_REF, not executed). With no browser
// running there is no document the token could name.
type documentStage struct{}

func (documentStage) name() string { return "document" }

func (documentStage) enter(ctx context.Context, c *call) (func(*outcome), error) {
	token := c.req.DocumentToken
	if !c.isWrite() || token == "" {
		return nil, nil
	}
	c.write.Document = token
	ctx, cancel := c.bounded(ctx)
	defer cancel()
	t, err := c.page(ctx)
	if err != nil {
		return nil, err
	}
	now, surface := "", "the session"
	if t != nil {
		now, surface = t.DocumentToken(), "surface "+c.client.Current()
	}
	if now == token {
		return nil, nil
	}
	return nil, apitype.Errorf(apitype.StaleRef, "%s shows another document than the snapshot of token %s; nothing was sent", surface, token).
		Fix("take a new snapshot ({1}) and plan on it", apitype.Step{Op: "snapshot"})
}
