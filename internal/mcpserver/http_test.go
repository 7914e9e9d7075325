package mcpserver

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestHTTPSurvivesMalformedBodies posts the bodies that used to end a
// stdio session to the streamable HTTP handler: each is refused with a
// client error, never a 5xx or a dropped connection, and the session goes
// on answering tools/list.
func TestHTTPSurvivesMalformedBodies(t *testing.T) {
	s, err := New(Options{Backend: &fakeBackend{}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{}))
	defer s.CloseSessions()
	defer hs.Close()
	post := func(session, body string) (int, string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatalf("posting %.80q: %v", body, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	code, body, h := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := h.Get("Mcp-Session-Id")
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %q\n%s", code, session, body)
	}
	if code, body, _ := post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code >= 300 {
		t.Fatalf("initialized: %d %s", code, body)
	}
	const batch = 3 // the index of the batch below
	bad := []string{
		"not json",
		`{"jsonrpc":"2.0","id":4,"method":"pi`,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[]`,
		`42`,
		`null`,
		`{"id":3,"method":"ping"}`,
		`{"jsonrpc":"1.0","id":"a","method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":1}`,
		"",
		`{"jsonrpc":"2.0","id":77,"method":"ping","params":{"x":"` + strings.Repeat("a", 64<<20) + `"}}`,
	}
	for i, b := range bad {
		for _, sess := range []string{session, ""} {
			code, resp, _ := post(sess, b)
			// Without a session no protocol version is negotiated, and the
			// go-sdk (v1.8.0) takes a batch then: it answers the ping.
			if sess == "" && i == batch && code == http.StatusOK {
				continue
			}
			if code < 400 || code >= 500 {
				t.Errorf("%.60q (session %q): %d %.200s", b, sess, code, resp)
			}
		}
	}
	for i := range 2 {
		code, body, _ := post(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i))
		if code != http.StatusOK || !bytes.Contains([]byte(body), []byte(`"browser_snapshot"`)) {
			t.Fatalf("tools/list after the bad bodies: %d %.300s", code, body)
		}
	}
}

// TestHTTPTokenAndSessionCap: with a token, a request without it (or with
// another) gets 401 and reaches nothing; the sessions open at once are
// capped, and a closed one frees its place.
func TestHTTPTokenAndSessionCap(t *testing.T) {
	s, err := New(Options{Backend: &fakeBackend{}})
	if err != nil {
		t.Fatal(err)
	}
	const token = "0123456789abcdef-token"
	hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{Token: token, MaxSessions: 1}))
	defer s.CloseSessions()
	defer hs.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	send := func(method, auth, session, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, hs.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id")
	}
	for _, auth := range []string{"", "Bearer wrong-token-wrong-token", "Basic " + token, "Bearer " + token + "x"} {
		if code, _ := send(http.MethodPost, auth, "", init); code != http.StatusUnauthorized {
			t.Errorf("initialize with Authorization %q: %d, want 401", auth, code)
		}
	}
	code, first := send(http.MethodPost, "Bearer "+token, "", init)
	if code != http.StatusOK || first == "" {
		t.Fatalf("initialize with the token: %d, session %q", code, first)
	}
	if code, _ := send(http.MethodPost, "Bearer "+token, "", init); code != http.StatusServiceUnavailable {
		t.Errorf("a second session beyond the cap: %d, want 503", code)
	}
	if code, _ := send(http.MethodDelete, "Bearer "+token, first, ""); code >= 400 {
		t.Fatalf("closing the session: %d", code)
	}
	if code, next := send(http.MethodPost, "Bearer "+token, "", init); code != http.StatusOK || next == "" || next == first {
		t.Errorf("a session after the first closed: %d %q", code, next)
	}
}

// TestHTTPSessionCapUnderConcurrentInitialize: initializes that arrive
// together never open more sessions than the cap (3 allowed 4, 16 allowed
// 22 before each new session held its place).
func TestHTTPSessionCapUnderConcurrentInitialize(t *testing.T) {
	for _, max := range []int{3, 16} {
		s, err := New(Options{Backend: &fakeBackend{}})
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{MaxSessions: max}))
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		var wg sync.WaitGroup
		var mu sync.Mutex
		opened := map[string]bool{}
		start := make(chan struct{})
		for range 4 * max {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(init))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := hs.Client().Do(req)
				if err != nil {
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if id := resp.Header.Get("Mcp-Session-Id"); resp.StatusCode == http.StatusOK && id != "" {
					mu.Lock()
					opened[id] = true
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(opened) > max || len(opened) == 0 {
			t.Errorf("cap %d: %d sessions opened", max, len(opened))
		}
		s.CloseSessions()
		hs.Close()
	}
}
