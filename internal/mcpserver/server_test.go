package mcpserver

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:1": true, "LOCALHOST": true, "[::1]:9": true, "127.9.9.9": true,
		"evil.example:80": false, "10.0.0.1:80": false, "localhost.evil.example": false, "": false, "[::]:80": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v", host, got)
		}
	}
}

func TestBodyDropsSizeFooter(t *testing.T) {
	in := "surface s1: \"x\" u\n- button \"Go\" [ref=e1]\n[45 chars, ~12 tokens]"
	if got := body(in); got != "surface s1: \"x\" u\n- button \"Go\" [ref=e1]" {
		t.Errorf("body: %q", got)
	}
	if got := body("no footer\n[ref=e1]"); got != "no footer\n[ref=e1]" {
		t.Errorf("body without footer: %q", got)
	}
}

func TestErrorResult(t *testing.T) {
	e := apitype.Errorf(apitype.StaleRef, "e5 is stale")
	e.SimilarRefs = []string{"e9"}
	s, err := New(Options{Backend: &fakeBackend{}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.errorResult(e)
	text := r.Content[0].(*mcp.TextContent).Text
	if !r.IsError || !strings.HasPrefix(text, "STALE_REF: e5 is stale\nhint: ") || !strings.Contains(text, "similar refs: e9") || !strings.Contains(text, "not executed") {
		t.Errorf("registry error: %v %q", r.IsError, text)
	}
	if sc := r.StructuredContent.(map[string]*apitype.Error)["error"]; sc.Code != apitype.StaleRef || !sc.NotExecuted {
		t.Errorf("structured: %+v", sc)
	}
	// A plain Go error never reaches the agent as a bare string.
	r = s.errorResult(errors.New("boom"))
	if text := r.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(text, "INTERNAL: boom") {
		t.Errorf("plain error: %q", text)
	}
}
