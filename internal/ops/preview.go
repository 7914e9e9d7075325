package ops

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/nav"
)

// Previews are the local HTML files authorised for tabs (package
// preview).
type Previews interface {
	// Allow authorises file for a tab of a task and returns its URL; shows
	// tells whether the tab still shows the grant's pages.
	Allow(file, tab, task string, shows func(prefix string) bool) (string, error)
	// Path is the file a tab's grant authorises ("" for none).
	Path(tab string) string
}

// PreviewIn names the file to preview.
type PreviewIn struct {
	Path string `json:"path" arg:"FILE" help:"an .html or .htm FILE: for agents, one in the session's files directory"`
	// Named is set by the CLI: the person named the file on the command
	// line, so it may be anywhere they can read.
	Named bool `json:"named,omitempty" mcp:"-" cli:"set by the CLI: the person named the file"`
}

// Replaces: a preview shows its file in the caller's tab.
func (in *PreviewIn) Replaces() bool { return true }

// Validate checks the file is given and is a web page.
func (in *PreviewIn) Validate() error {
	if in.Path == "" {
		return usage("missing %s", fld("path"))
	}
	if ext := strings.ToLower(filepath.Ext(in.Path)); ext != ".html" && ext != ".htm" {
		return usage("%s %q: a preview is of an .html or .htm file", fld("path"), in.Path)
	}
	return nil
}

// preview authorises the file for the caller's current tab and opens it
// there.
func preview(ctx context.Context, env Env, tab *engine.Surface, file string) (*NavOut, error) {
	t := tab
	url, err := env.Previews().Allow(file, t.PageID(), env.Task(), func(prefix string) bool {
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
	r, err := nav.Navigate(ctx, tab, url)
	if err != nil {
		return nil, err
	}
	return navOut(r), nil
}

func previewOps() []*Op {
	return []*Op{
		define("preview", "open a local HTML file (and the files beside it) in the current tab, served on loopback under an unguessable address", Write, navTimeout,
			func(ctx context.Context, env Env, in *PreviewIn) (*NavOut, error) {
				file := in.Path
				if !in.Named {
					p, err := env.FilePath(in.Path)
					if err != nil {
						return nil, err
					}
					file = p
				}
				tab, err := env.Tab(ctx)
				if err != nil {
					return nil, err
				}
				return preview(ctx, env, tab, file)
			}).as(ActNavigate).mcp(Tool{Name: "browser_preview", Desc: "Open a local .html file of the session's files (and the files beside it) in the current tab, served on loopback under an unguessable address that ends when the tab leaves it."}),
	}
}
