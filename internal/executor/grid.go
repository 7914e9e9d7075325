package executor

import (
	"context"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/sessions"
)

// The Selenium Grid side of handlers.Browsers (see sessions.GridSource).

func (b browsers) AttachGrid(ctx context.Context, url, capabilities string) (*engine.Browser, error) {
	return b.s.AttachGrid(ctx, sessions.GridSource{URL: url, Capabilities: capabilities})
}

func (b browsers) Place() (string, *ops.GridPlace) {
	p := b.s.Place()
	if p.Kind != "grid" {
		return p.Kind, nil
	}
	return p.Kind, &ops.GridPlace{URL: p.Grid, Session: p.Session, Node: p.Node}
}
