package cli

import (
	"fmt"
	"strings"

	"github.com/loupe-dev/loupe/internal/mcpconfig"
)

// printMCPConfig writes a client's snippet to stdout and where it goes,
// with the client's command, to stderr.
func (c *cmd) printMCPConfig(client, bin string, args []string) int {
	cl, ok := mcpconfig.Lookup(client)
	if !ok {
		return c.usage(fmt.Errorf("--print-config %q: want one of %s", client, strings.Join(mcpconfig.Names(), ", ")), mcpUsage)
	}
	fmt.Fprint(c.stdout, cl.Snippet(bin, args))
	fmt.Fprintf(c.stderr, "# %s: put this in %s\n", client, cl.Where)
	if add := cl.Add(bin, args); add != "" {
		fmt.Fprintf(c.stderr, "# or run:\n%s\n", add)
	}
	return 0
}
