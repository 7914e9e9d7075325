// Package mcpserver serves loupe's operations as Model Context Protocol
// tools, through the same executor as every other front end.
//
// This is the first cut: the tools an agent needs to navigate, read a
// snapshot and click (browser_navigate, browser_snapshot, browser_click).
// The full tool set, diffs after writes and the HTTP transport follow in
// their own issue.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/ops"
)

// Server is an MCP server bound to one executor session.
type Server struct {
	x       *executor.Executor
	session string
	srv     *mcp.Server
}

// New builds the server and its tools.
func New(x *executor.Executor, session, version string) *Server {
	s := &Server{x: x, session: session, srv: mcp.NewServer(&mcp.Implementation{Name: "loupe", Version: version}, nil)}
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "browser_navigate",
		Description: "Open a URL in the current tab and wait for it to load.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in NavigateIn) (*mcp.CallToolResult, any, error) {
		return s.call(ctx, "open", &ops.OpenIn{URL: in.URL})
	})
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "browser_snapshot",
		Description: "The page as a tree of roles and names; act on nodes by their [ref=eN].",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in SnapshotIn) (*mcp.CallToolResult, any, error) {
		return s.call(ctx, "snapshot", &ops.SnapshotIn{})
	})
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "browser_click",
		Description: "Click an element by its ref from the latest snapshot.",
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ClickIn) (*mcp.CallToolResult, any, error) {
		return s.call(ctx, "click", &ops.ClickIn{Target: in.Ref})
	})
	return s
}

// NavigateIn is the input of browser_navigate.
type NavigateIn struct {
	URL string `json:"url" jsonschema:"the address to open"`
}

// SnapshotIn is the input of browser_snapshot.
type SnapshotIn struct{}

// ClickIn is the input of browser_click.
type ClickIn struct {
	Ref string `json:"ref" jsonschema:"element ref from the snapshot, e.g. e12"`
}

// call runs an operation through the executor and turns its result (or
// registry error) into a tool result.
func (s *Server) call(ctx context.Context, op string, in any) (*mcp.CallToolResult, any, error) {
	out, err := s.x.Do(ctx, executor.Request{Op: op, Session: s.session, Decoded: in})
	if err != nil {
		e, ok := apitype.As(err)
		if !ok {
			e = apitype.Wrap(apitype.Internal, err, "%v", err)
		}
		b, _ := json.Marshal(map[string]*apitype.Error{"error": e})
		return &mcp.CallToolResult{
			IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s: %s (%s)\n%s", e.Code, e.Message, e.Hint, b)}},
		}, nil, nil
	}
	text := ""
	if t, ok := out.(ops.Texter); ok {
		text = t.Text()
	} else {
		b, _ := json.Marshal(out)
		text = string(b)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// Run serves MCP on the transport until the client disconnects or ctx
// ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.srv.Run(ctx, t)
}
