package depscheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/loupe-dev/loupe/"

// clients are the packages that must stay on the contract's side.
var clients = []string{
	module + "internal/cli",
	module + "internal/client",
	module + "internal/ops",
	module + "internal/skill",
	module + "internal/mcpserver",
}

// binding are the import paths a client must not reach: each names a
// package and everything under it.
var binding = []string{
	module + "internal/engine",
	module + "internal/cdp",
	module + "internal/chromium",
	module + "internal/ledger",
	module + "internal/cookies",
	module + "internal/sessions",
	module + "internal/executor",
	module + "internal/handlers",
	module + "internal/system",
	module + "internal/daemon",
	module + "internal/mcplocal",
	"github.com/chromedp/cdproto",
	"modernc.org/sqlite",
	"github.com/jackc/pgx",
}

func forbidden(path string) bool {
	for _, b := range binding {
		if path == b || strings.HasPrefix(path, b+"/") {
			return true
		}
	}
	return false
}

// pkg is what go list -json says of a package.
type pkg struct {
	ImportPath string
	Imports    []string
}

// graph lists the packages roots import, directly or not, with their
// imports (go list -deps -json, without tests: what the binary links).
func graph(t *testing.T, roots ...string) map[string][]string {
	t.Helper()
	// go test puts its own toolchain's bin first in the test's PATH.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to list the packages with: %v", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(goBin, append([]string{"list", "-deps", "-json=ImportPath,Imports"}, roots...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	g := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list: %v", err)
		}
		g[p.ImportPath] = p.Imports
	}
	return g
}

// reach returns a forbidden package root reaches and the chain of imports
// that leads there ("" when it reaches none).
func reach(g map[string][]string, root string) (string, []string) {
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if forbidden(p) {
			chain := []string{p}
			for q := from[p]; q != ""; q = from[q] {
				chain = append(chain, q)
			}
			slices.Reverse(chain)
			return p, chain
		}
		for _, im := range g[p] {
			if _, seen := from[im]; !seen {
				from[im] = p
				queue = append(queue, im)
			}
		}
	}
	return "", nil
}

// TestClientsLinkNoBinding: no client package reaches the engine, CDP,
// the ledger, SQLite, PostgreSQL's driver, the executor or the daemon's side; the failure names
// the chain of imports that does.
func TestClientsLinkNoBinding(t *testing.T) {
	control := module + "internal/localapi" // a front end over the executor, in the daemon
	g := graph(t, append(slices.Clone(clients), control)...)
	for _, c := range clients {
		if _, ok := g[c]; !ok {
			t.Fatalf("go list did not list %s", c)
		}
		if bad, chain := reach(g, c); bad != "" {
			t.Errorf("%s links %s: %s", c, bad, strings.Join(chain, " → "))
		}
	}
	// The check can fail: the local API, the daemon's own front end,
	// reaches the executor.
	if bad, chain := reach(g, control); bad == "" || len(chain) < 2 {
		t.Errorf("%s reaches no binding package: the check sees nothing", control)
	}
}
