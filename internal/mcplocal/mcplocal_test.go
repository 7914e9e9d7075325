package mcplocal

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/handlers"
	"github.com/loupe-dev/loupe/internal/mcpserver"
	"github.com/loupe-dev/loupe/internal/ops"
)

type echoIn struct {
	N int `json:"n"`
}

type echoOut struct {
	N             int
	Session, Task string
}

// TestLocalSendsItsEnvelope: a call runs on the executor as the server's
// own caller — its session and its client's task — with the tool call's
// input.
func TestLocalSendsItsEnvelope(t *testing.T) {
	echo := ops.Describe[echoIn, echoOut]("echo", "echo", ops.Read, time.Second)
	x := executor.New(executor.Config{Home: t.TempDir(), Chromium: "/nonexistent", Registry: ops.NewRegistry(echo), Handlers: map[string]handlers.Handler{
		"echo": handlers.Func(func(_ context.Context, d *handlers.Deps, in *echoIn) (*echoOut, error) {
			return &echoOut{N: in.N, Session: d.Session, Task: d.Task}, nil
		}),
	}})
	defer x.Close(context.Background())
	l := &Local{X: x}
	l.Session, l.Client = "work", "mcp"
	r, err := l.Do(context.Background(), mcpserver.Call{Op: echo, OpRequest: apitype.OpRequest{Input: json.RawMessage(`{"n":7}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Out.(*echoOut); out.N != 7 || out.Session != "work" || out.Task != executor.DefaultTask("mcp") {
		t.Fatalf("the call ran as %+v", out)
	}
	if err := l.Close(context.Background()); err == nil {
		t.Fatal("Close of a Local that Open did not build")
	}
}
