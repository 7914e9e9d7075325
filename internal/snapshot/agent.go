// Package snapshot turns a page into the text tree an agent reads: the page
// agent (JavaScript run in an isolated world) walks the DOM and computes
// roles, names and states; this package decodes its tree, applies the
// compact transform, binds refs and renders text. Everything here except the
// agent script is pure and tested from recorded trees in testdata/.
package snapshot

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed js/*.js
var jsFiles embed.FS

// WorldName is the name of the isolated world the agent runs in.
const WorldName = "__loupe"

var agentOnce = sync.OnceValue(func() string {
	names, _ := fs.Glob(jsFiles, "js/*.js")
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("(() => { if (globalThis.__loupe) return true; globalThis.__loupe = (function () {\n'use strict';\n")
	for _, n := range names {
		src, _ := jsFiles.ReadFile(n)
		b.Write(src)
		b.WriteByte('\n')
	}
	b.WriteString("})(); return true; })()")
	return b.String()
})

// AgentScript returns the page agent's source. Evaluating it in a world
// installs globalThis.__loupe there once; evaluating it again is a no-op.
func AgentScript() string { return agentOnce() }
