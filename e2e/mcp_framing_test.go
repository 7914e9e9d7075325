package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestMCPStdioMalformedLines: `loupe mcp` answers each malformed line with
// its JSON-RPC error (parse error or invalid request; a malformed
// notification gets nothing) and serves the next one; it exits 0 when its
// input ends (startRawMCP checks).
func TestMCPStdioMalformedLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := startRawMCP(t, e)
	write := func(line string) {
		t.Helper()
		if _, err := c.stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatalf("writing to loupe mcp: %v\nstderr: %s", err, c.stderr)
		}
	}
	type reply struct {
		ID     json.RawMessage     `json:"id"`
		Result json.RawMessage     `json:"result"`
		Error  *struct{ Code int } `json:"error"`
	}
	next := func() (reply, []byte) {
		t.Helper()
		select {
		case line, ok := <-c.lines:
			if !ok {
				t.Fatalf("loupe mcp closed its output\nstderr: %s", c.stderr)
			}
			var r reply
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("not JSON: %v\n%.300s", err, line)
			}
			return r, line
		case <-time.After(30 * time.Second):
			t.Fatalf("no reply in 30 s\nstderr: %s", c.stderr)
		}
		return reply{}, nil
	}
	write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r, line := next(); r.Error != nil {
		t.Fatalf("initialize: %s", line)
	}
	write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	for i, tc := range []struct{ name, line, want string }{
		{"not JSON", "not json", "-32700 null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "-32600 null"},
		{"no jsonrpc", `{"id":2,"method":"ping"}`, "-32600 2"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"x","method":"ping"}`, `-32600 "x"`},
		{"truncated", `{"jsonrpc":"2.0","id":3,"method":"tools/li`, "-32700 null"},
		{"object id", `{"jsonrpc":"2.0","id":{"n":4},"method":"ping"}`, "-32600 null"},
		{"array id", `{"jsonrpc":"2.0","id":[4],"method":"ping"}`, "-32600 null"},
		{"bool id", `{"jsonrpc":"2.0","id":false,"method":"ping"}`, "-32600 null"},
		{"deeper than 1000", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "-32700 null"},
		{"bare 42", "42", "-32600 null"},
		{"64 MiB line", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + strings.Repeat("a", 64<<20) + `"}}`, "-32700 null"},
		{"malformed notification", `{"jsonrpc":"1.0","method":"notifications/initialized"}`, ""},
	} {
		ping := 100 + i
		write(tc.line)
		write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, ping))
		got := ""
		for {
			r, line := next()
			if string(r.ID) == fmt.Sprint(ping) && r.Error == nil {
				break
			}
			if r.Error == nil || got != "" {
				t.Errorf("%s: unexpected %.200s", tc.name, line)
				continue
			}
			got = fmt.Sprintf("%d %s", r.Error.Code, r.ID)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	write(`{"jsonrpc":"2.0","id":"tools","method":"tools/list"}`)
	if r, line := next(); r.Error != nil || !strings.Contains(string(r.Result), `"browser_navigate"`) {
		t.Fatalf("tools/list after the malformed lines: %.300s", line)
	}
}
