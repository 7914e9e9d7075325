package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPBadInputEveryField sends every MCP tool, for every field of its
// input schema, a value of the wrong type, and an unknown field: each call
// is refused with a clear error — a tool error BAD_INPUT, or the
// protocol's invalid-params error — and the server goes on serving. No
// browser is started for any of it.
func TestMCPBadInputEveryField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	badInputEveryField(t, e, startMCP(t, e, "--allow-eval"))
}

// TestMCPHTTPBadInputEveryField is the same over streamable HTTP.
func TestMCPHTTPBadInputEveryField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m, _, _ := startHTTPMCP(t, e, "--allow-eval")
	badInputEveryField(t, e, m)
}

// startHTTPMCP starts `loupe mcp --http 127.0.0.1:0` with these arguments
// and connects a client to the address it announces, which it returns too.
func startHTTPMCP(t *testing.T, e *env, args ...string) (mcpCaller, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cmd := e.command(append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	endpoint, token := "", ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() { // the server prints its token, then its address once it listens
		if _, after, ok := strings.Cut(sc.Text(), "bearer token "); ok {
			token = strings.TrimSpace(after)
		}
		if _, after, ok := strings.Cut(sc.Text(), "serving MCP at "); ok {
			endpoint = strings.TrimSpace(after)
			break
		}
	}
	if token == "" {
		t.Fatal("no token announced: --http must make one by default")
	}
	if endpoint == "" {
		t.Fatal("no address announced")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	client := &http.Client{Transport: bearer{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "loupe-test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return mcpCaller{t, ctx, cs}, endpoint, token
}

// bearer adds the MCP server's token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func badInputEveryField(t *testing.T, e *env, m mcpCaller) {
	tools, err := m.cs.ListTools(m.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wrong := map[string]any{"string": 42, "integer": "x", "number": "x", "boolean": "yes", "array": "not a list", "object": []any{1}}
	calls := 0
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s: schema: %v", tool.Name, err)
		}
		names := make([]string, 0, len(schema.Properties))
		for n := range schema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		cases := map[string]map[string]any{"unknown field": {"bogus_field_xyz": 1}}
		for _, n := range names {
			typ, _ := schema.Properties[n].Type.(string)
			if v, ok := wrong[typ]; ok {
				cases[n+" as a "+typ+"'s opposite"] = map[string]any{n: v}
			}
		}
		for what, args := range cases {
			calls++
			r, err := m.cs.CallTool(m.ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			switch {
			case err != nil:
				if !strings.Contains(err.Error(), "invalid") && !strings.Contains(err.Error(), "validat") {
					t.Errorf("%s, %s: unclear protocol error %v", tool.Name, what, err)
				}
			case !r.IsError:
				t.Errorf("%s, %s (%v): accepted", tool.Name, what, args)
			default:
				code, notExec := errorOf(t, toolResult{res: r, isErr: true})
				if code != "BAD_INPUT" || !notExec {
					t.Errorf("%s, %s: %s not_executed=%v", tool.Name, what, code, notExec)
				}
			}
		}
	}
	if calls < 50 {
		t.Fatalf("only %d bad calls made: the schemas were not read", calls)
	}
	if _, err := m.cs.ListTools(m.ctx, nil); err != nil {
		t.Fatalf("the server after %d bad calls: %v", calls, err)
	}
	if p := e.browserProcesses(); len(p) != 0 {
		t.Errorf("bad input started a browser: %v", p)
	}
}
