package e2e

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestMCPStdio drives `loupe mcp` with the Go SDK's client, as the peer
// bench does: list tools, navigate, snapshot, click by ref, and get a
// registry error as a tool error.
func TestMCPStdio(t *testing.T) {
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(loupeBin, "mcp")
	cmd.Env = append(os.Environ(), "LOUPE_HOME="+e.home)
	client := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "browser_click,browser_navigate,browser_snapshot" {
		t.Errorf("tools: %v", names)
	}
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String(), r.IsError
	}
	if out, isErr := call("browser_navigate", map[string]any{"url": srv.Page("dupes.html")}); isErr {
		t.Fatalf("navigate: %s", out)
	}
	snap, _ := call("browser_snapshot", nil)
	m := regexp.MustCompile(`button "Save" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no Save button in:\n%s", snap)
	}
	if out, isErr := call("browser_click", map[string]any{"ref": m[1]}); isErr {
		t.Fatalf("click: %s", out)
	}
	if after, _ := call("browser_snapshot", nil); !strings.Contains(after, "clicked-visible-save") {
		t.Errorf("click did not land:\n%s", after)
	}
	call("browser_navigate", map[string]any{"url": srv.Page("basic.html")})
	out, isErr := call("browser_click", map[string]any{"ref": m[1]})
	if !isErr || !strings.HasPrefix(out, "STALE_REF: ") || !strings.Contains(out, `"not_executed":true`) {
		t.Errorf("stale click: isError=%v %q", isErr, out)
	}
	out, isErr = call("browser_click", map[string]any{"ref": "@x1"})
	if !isErr || !strings.HasPrefix(out, "BAD_INPUT: ") {
		t.Errorf("malformed ref: isError=%v %q", isErr, out)
	}
}
