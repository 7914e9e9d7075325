package sessions

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// fakeGrid answers New Session with reply and records the deletes; its
// se:cdp leads nowhere (no websocket is served), as a Grid whose proxy
// fails.
func fakeGrid(t *testing.T, status int, reply string) (url string, deleted func() []string) {
	var mu sync.Mutex
	var del []string
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, reply)
	})
	mux.HandleFunc("DELETE /session/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		del = append(del, r.PathValue("id"))
		mu.Unlock()
		io.WriteString(w, `{"value":null}`)
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"value":{"ready":true,"nodes":[]}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), del...)
	}
}

// A browser the Grid gave but loupe could not attach to is given back at
// once (its WebDriver session deleted), and the session holds nothing.
func TestAttachGridFailsAfterTheGridGaveABrowser(t *testing.T) {
	url, deleted := fakeGrid(t, 200, `{"value":{"sessionId":"s-1","capabilities":{"se:cdp":"ws://10.1.2.3:4444/session/s-1/se/cdp"}}}`)
	m := New(Config{Home: t.TempDir(), MaxSessions: 1})
	defer m.Close(context.Background())
	s := m.Get("g")
	_, err := s.AttachGrid(context.Background(), GridSource{URL: url})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.BrowserStart {
		t.Fatalf("attach to a Grid whose CDP endpoint fails: %v", err)
	}
	if d := deleted(); len(d) != 1 || d[0] != "s-1" {
		t.Fatalf("deleted WebDriver sessions: %v", d)
	}
	if s.Place().Kind != "" || len(m.held) != 0 {
		t.Errorf("the session holds %+v, the bound %d", s.Place(), len(m.held))
	}
	if left, _ := filepath.Glob(filepath.Join(s.Dir(), "grid-*")); len(left) != 0 {
		t.Errorf("the lease of a deleted WebDriver session is still on record: %v", left)
	}
}

// The Grid's own answers get their codes and keep its words.
func TestAttachGridErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		reply  string
		code   apitype.Code
		words  string
	}{
		{500, `{"value":{"error":"session not created","message":"Could not start a new session. New session request timed out \nHost info"}}`, apitype.GridBusy, "New session request timed out"},
		{500, `{"value":{"error":"session not created","message":"Could not start a new session. Error while creating session with the driver service."}}`, apitype.BrowserStart, "driver service"},
		{400, `{"value":{"error":"invalid argument","message":"Illegal key values seen in w3c capabilities"}}`, apitype.BadInput, "Illegal key values"},
		{200, `{"value":{"sessionId":"s-2","capabilities":{}}}`, apitype.TransportUnsupported, "se:cdp"},
	} {
		url, _ := fakeGrid(t, tc.status, tc.reply)
		m := New(Config{Home: t.TempDir()})
		_, err := m.Get("g").AttachGrid(context.Background(), GridSource{URL: url})
		if e, ok := apitype.As(err); !ok || e.Code != tc.code || !e.NotExecuted || !strings.Contains(e.Message, tc.words) {
			t.Errorf("%s: %v", tc.reply, err)
		}
		m.Close(context.Background())
	}
	m := New(Config{Home: t.TempDir()})
	defer m.Close(context.Background())
	_, err := m.Get("g").AttachGrid(context.Background(), GridSource{URL: "http://127.0.0.1:1"})
	if e, ok := apitype.As(err); !ok || e.Code != apitype.GridUnavailable {
		t.Errorf("an unreachable Grid: %v", err)
	}
}
