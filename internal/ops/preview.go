package ops

import (
	"path/filepath"
	"strings"
)

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

func previewOps() []*Op {
	return []*Op{
		describe[PreviewIn, NavOut]("preview", "open a local HTML file (and the files beside it) in the current tab, served on loopback under an unguessable address", Write, navTimeout).as(ActNavigate).mcp(Tool{Name: "browser_preview", Desc: "Open a local .html file of the session's files (and the files beside it) in the current tab, served on loopback under an unguessable address that ends when the tab leaves it."}),
	}
}
