package executor

import (
	"context"
	"net/url"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/ops"
)

// localSchemes are the addresses that reach the machine loupe runs on, or
// the browser's own pages, rather than the web: local files (and their
// directory listings) and the browser's settings and internals. Agents
// (MCP clients) may not open them unless the person who started the
// server allowed it (loupe mcp --allow-local-pages); a person at the CLI
// may (Request.LocalPages).
var localSchemes = map[string]bool{"file": true, "chrome": true, "chrome-untrusted": true, "devtools": true, "chrome-extension": true}

// navTarget is the address a write opens, if it opens one (its input is
// an ops.Navigator).
func navTarget(in any) string {
	if n, ok := in.(ops.Navigator); ok {
		return n.NavigatesTo()
	}
	return ""
}

// originStage refuses a navigation to a local page by a caller that may
// not open one (Request.LocalPages; DENIED, not executed).
type originStage struct{}

func (originStage) name() string { return "origin" }

func (originStage) enter(_ context.Context, c *call) (func(*outcome), error) {
	raw := navTarget(c.in)
	if !c.isWrite() || raw == "" || c.req.LocalPages {
		return nil, nil
	}
	scheme, _, _ := strings.Cut(raw, ":")
	if !localSchemes[strings.ToLower(scheme)] {
		return nil, nil
	}
	return nil, apitype.Errorf(apitype.Denied, "%s: agents may not open %s: pages (local files and the browser's own pages); nothing was opened", c.op.Name, strings.ToLower(scheme)).
		Fix("the person who started this server can allow them (its --allow-local-pages flag)")
}

// originOf is a URL's origin (scheme://host[:port]); local pages have an
// origin of their scheme (file://, chrome://settings) so that the approval
// policy's origin patterns can name them. "" when it has none.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return ""
	}
	if u.Host == "" && !localSchemes[u.Scheme] {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
