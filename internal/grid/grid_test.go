package grid

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: a
// request followed through after its caller left must end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeGrid is a Grid 4 on loopback that answers as the fields say; it
// records what it was asked.
type fakeGrid struct {
	t   *testing.T
	srv *httptest.Server

	mu      sync.Mutex
	created string // the reply to New Session ("" is a session of reportCDP)
	status  int    // its HTTP status (0: 200)
	cdp     string // se:cdp of the session it gives
	free    bool   // /status shows a free slot
	bodies  []string
	deleted []string
	hold    chan struct{} // New Session waits on it when set
	window  string        // the reply to GET window ("" is a handle)
	// delStatus and delReply answer Delete Session (0: 200, null);
	// delHang holds it until its client leaves.
	delStatus int
	delReply  string
	delHang   bool
}

func newFakeGrid(t *testing.T) *fakeGrid {
	g := &fakeGrid{t: t, cdp: "ws://10.9.8.7:4444/session/s-1/se/cdp", free: true}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			http.Error(w, "bad content type "+ct, http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(r.Body)
		g.mu.Lock()
		g.bodies = append(g.bodies, string(b))
		hold, created, status := g.hold, g.created, g.status
		g.mu.Unlock()
		if hold != nil {
			<-hold
		}
		if created == "" {
			created = `{"value":{"sessionId":"s-1","capabilities":{"browserName":"chrome","browserVersion":"156.0","se:cdp":"` + g.cdp + `","se:cdpVersion":"156.0","goog:processID":42}}}`
		}
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		io.WriteString(w, created)
	})
	mux.HandleFunc("DELETE /session/{id}", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.deleted = append(g.deleted, r.PathValue("id"))
		status, reply, hang := g.delStatus, g.delReply, g.delHang
		g.mu.Unlock()
		if hang {
			<-r.Context().Done()
			return
		}
		if status != 0 {
			w.WriteHeader(status)
			io.WriteString(w, reply)
			return
		}
		io.WriteString(w, `{"value":null}`)
	})
	mux.HandleFunc("GET /session/{id}/window", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		reply := g.window
		g.mu.Unlock()
		if reply == "" {
			io.WriteString(w, `{"value":"0C8C"}`)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, reply)
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		free := g.free
		g.mu.Unlock()
		slot := `{"session":{"sessionId":"s-1"}}`
		if free {
			slot = `{"session":null}`
		}
		io.WriteString(w, `{"value":{"ready":true,"message":"Selenium Grid ready.","nodes":[{"id":"n1","uri":"http://10.9.8.7:5555","availability":"UP","slots":[`+slot+`]}]}}`)
	})
	g.srv = httptest.NewServer(mux)
	t.Cleanup(g.srv.Close)
	return g
}

func (g *fakeGrid) client(t *testing.T) *Client {
	c, err := New(g.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// set changes the fake's answers while it serves.
func (g *fakeGrid) set(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f()
}

func (g *fakeGrid) body(i int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.bodies[i]
}

func (g *fakeGrid) deletes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.deleted...)
}

func TestNewSession(t *testing.T) {
	g := newFakeGrid(t)
	c := g.client(t)
	caps, err := Capabilities([]string{"--headless=new", "--no-sandbox"}, `{"browserVersion":"156"}`)
	if err != nil {
		t.Fatal(err)
	}
	g.set(func() { g.free = false }) // the session's slot, as /status lists it once given
	s, err := c.NewSession(context.Background(), caps)
	if err != nil {
		t.Fatal(err)
	}
	// se:cdp names the Grid's own idea of its address; loupe dials the
	// address it reached the Grid by.
	want := "ws://" + strings.TrimPrefix(g.srv.URL, "http://") + "/session/s-1/se/cdp"
	if s.ID != "s-1" || s.CDP != want || s.Browser != "chrome 156.0" || s.ProcessID != 42 || s.Node != "http://10.9.8.7:5555" {
		t.Fatalf("session %+v; want CDP %s", s, want)
	}
	var body struct {
		Capabilities struct {
			AlwaysMatch map[string]any `json:"alwaysMatch"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal([]byte(g.body(0)), &body); err != nil {
		t.Fatal(err)
	}
	am := body.Capabilities.AlwaysMatch
	opts, _ := am["goog:chromeOptions"].(map[string]any)
	if am["browserName"] != "chrome" || am["browserVersion"] != "156" || opts["binary"] != Chromium {
		t.Errorf("capabilities sent: %s", g.body(0))
	}
	if err := s.Delete(context.Background()); err != nil || len(g.deletes()) != 1 {
		t.Errorf("delete: %v %v", err, g.deletes())
	}
}

// The Grid's own words come back, first line only; "no free slot" is
// ErrNoSlot.
func TestNewSessionErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		reply   string
		noSlot  bool
		code    string
		message string
	}{
		{"queue timed out", 500, `{"value":{"error":"session not created","message":"Could not start a new session. New session request timed out \nHost info: host: 'vm'\nBuild info: version: '4.21.0'","stacktrace":[]}}`,
			true, "session not created", "Could not start a new session. New session request timed out"},
		// The queue's reaper, which runs every --session-request-timeout-period,
		// words the same timeout differently when it gets there first
		// (seen on Selenium 4.20 under a loaded make test).
		{"queue reaped", 500, `{"value":{"error":"session not created","message":"Could not start a new session. Timed out creating session \nHost info: host: 'vm'"}}`,
			true, "session not created", "Could not start a new session. Timed out creating session"},
		{"driver failed", 500, `{"value":{"error":"session not created","message":"Could not start a new session. Error while creating session with the driver service.\nmore"}}`,
			false, "session not created", "Could not start a new session. Error while creating session with the driver service."},
		{"bad capabilities", 400, `{"value":{"error":"invalid argument","message":"Unable to parse capabilities"}}`, false, "invalid argument", "Unable to parse capabilities"},
		{"a proxy's page", 502, "<html>Bad Gateway</html>\n<body>", false, "", "HTTP 502: <html>Bad Gateway</html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newFakeGrid(t)
			g.set(func() { g.status, g.created = tc.status, tc.reply })
			_, err := g.client(t).NewSession(context.Background(), []byte(`{}`))
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code || e.Message != tc.message || e.Status != tc.status {
				t.Fatalf("error %v (%#v)", err, e)
			}
			if errors.Is(err, ErrNoSlot) != tc.noSlot {
				t.Errorf("errors.Is(ErrNoSlot) = %v", !tc.noSlot)
			}
		})
	}
}

// A session without se:cdp cannot be driven: it is deleted at once and
// the error says why.
func TestNewSessionWithoutCDP(t *testing.T) {
	g := newFakeGrid(t)
	g.set(func() { g.created = `{"value":{"sessionId":"s-9","capabilities":{"browserName":"chrome"}}}` })
	_, err := g.client(t).NewSession(context.Background(), []byte(`{}`))
	if !errors.Is(err, ErrNoCDP) {
		t.Fatalf("error %v", err)
	}
	if d := g.deletes(); len(d) != 1 || d[0] != "s-9" {
		t.Errorf("deleted %v, want s-9", d)
	}
}

// A caller that gives up while the request waits in the Grid's queue
// gets ErrNoSlot at once; the browser the Grid starts for the request
// later is deleted, never left holding the slot.
func TestNewSessionAbandoned(t *testing.T) {
	g := newFakeGrid(t)
	hold := make(chan struct{})
	g.set(func() { g.free, g.hold = false, hold })
	c := g.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.NewSession(ctx, []byte(`{}`))
	if !errors.Is(err, ErrNoSlot) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v", err)
	}
	close(hold) // a slot frees: the Grid gives the queued request its browser
	deadline := time.Now().Add(10 * time.Second)
	for len(g.deletes()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned request's session was not deleted")
		}
		time.Sleep(10 * time.Millisecond) // polling the fake's record: the delete is the client's own goroutine's
	}
	if d := g.deletes(); len(d) != 1 || d[0] != "s-1" {
		t.Errorf("deleted %v", d)
	}
}

// A deadline with a free slot is a slow Grid, not a full one.
func TestNewSessionSlow(t *testing.T) {
	g := newFakeGrid(t)
	hold := make(chan struct{})
	g.set(func() { g.hold = hold })
	c := g.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.NewSession(ctx, []byte(`{}`))
	close(hold)
	if errors.Is(err, ErrNoSlot) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v", err)
	}
}

func TestDeleteAndAlive(t *testing.T) {
	g := newFakeGrid(t)
	s, err := g.client(t).NewSession(context.Background(), []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Alive(context.Background()); !ok || err != nil {
		t.Errorf("alive: %v %v", ok, err)
	}
	g.set(func() {
		g.window = `{"value":{"error":"no such window","message":"no such window: target window already closed"}}`
	})
	if ok, err := s.Alive(context.Background()); !ok || err != nil {
		t.Errorf("with WebDriver's tab closed: %v %v", ok, err)
	}
	g.set(func() {
		g.window = `{"value":{"error":"invalid session id","message":"invalid session id: session deleted as the browser has closed the connection\nfrom disconnected"}}`
	})
	if ok, err := s.Alive(context.Background()); ok || err != nil {
		t.Errorf("with the browser gone: %v %v", ok, err)
	}
	g.srv.Close()
	if ok, err := s.Alive(context.Background()); !ok || err == nil {
		t.Errorf("with the Grid unreachable: %v %v", ok, err)
	}
	if err := s.Delete(context.Background()); err == nil || !strings.Contains(err.Error(), "s-1") {
		t.Errorf("delete on an unreachable Grid: %v", err)
	}
}

// EndSession ends a session by its id alone: one the Grid no longer has
// is ended already, any other refusal is an error with the Grid's words,
// and a Grid that does not answer is left when ctx ends.
func TestEndSession(t *testing.T) {
	g := newFakeGrid(t)
	c := g.client(t)
	if err := c.EndSession(context.Background(), "left-1"); err != nil {
		t.Fatalf("a session the Grid ends: %v", err)
	}
	g.set(func() {
		g.delStatus, g.delReply = http.StatusNotFound, `{"value":{"error":"invalid session id","message":"Unable to find session with ID: left-2\nBuild info"}}`
	})
	if err := c.EndSession(context.Background(), "left-2"); err != nil {
		t.Fatalf("a session the Grid no longer has: %v", err)
	}
	g.set(func() {
		g.delStatus, g.delReply = http.StatusInternalServerError, `{"value":{"error":"unknown error","message":"node unreachable"}}`
	})
	if err := c.EndSession(context.Background(), "left-3"); err == nil || !strings.Contains(err.Error(), "left-3") || !strings.Contains(err.Error(), "node unreachable") {
		t.Fatalf("a Grid that failed to end it: %v", err)
	}
	g.set(func() { g.delHang = true })
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.EndSession(ctx, "left-4"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a Grid that does not answer: %v", err)
	}
	if d := g.deletes(); strings.Join(d, " ") != "left-1 left-2 left-3 left-4" {
		t.Errorf("deletes: %v", d)
	}
}

// An error of an unreachable Grid names it without its password.
func TestUnreachableRedacted(t *testing.T) {
	g := newFakeGrid(t)
	g.srv.Close()
	c, err := New(strings.Replace(g.srv.URL, "http://", "http://ada:secret@", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Status(context.Background())
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "ada:xxxxx@") {
		t.Fatalf("error %v", err)
	}
}

func TestStatus(t *testing.T) {
	g := newFakeGrid(t)
	c := g.client(t)
	st, err := c.Status(context.Background())
	if err != nil || !st.Ready || st.Free() != 1 || st.Used() != 0 {
		t.Fatalf("%+v %v", st, err)
	}
	g.set(func() { g.free = false })
	st, err = c.Status(context.Background())
	if err != nil || st.Free() != 0 || st.Used() != 1 || st.NodeOf("s-1") != "http://10.9.8.7:5555" {
		t.Fatalf("%+v %v", st, err)
	}
}

func TestParseURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:4444": true, "https://grid.example/wd/hub/": true, "http://u:p@h:1": true,
		"127.0.0.1:4444": false, "ws://h:1": false, "http://": false, "http://h:1/?a=b": false, "": false,
	} {
		if _, err := ParseURL(raw); (err == nil) != ok {
			t.Errorf("ParseURL(%q): %v", raw, err)
		}
	}
}

func TestCapabilities(t *testing.T) {
	args := []string{"--headless=new", "--no-sandbox", "--window-size=1280,720"}
	for _, tc := range []struct{ user, want string }{
		{"", `{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"args":["--headless=new","--no-sandbox","--window-size=1280,720"],"binary":"/usr/bin/chromium","excludeSwitches":["enable-automation"]}}}}`},
		// Objects merge, null removes, args add and replace by name.
		{`{"platformName":"linux","goog:chromeOptions":{"binary":null,"args":["--window-size=800,600","--lang=fr"]}}`,
			`{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"args":["--headless=new","--no-sandbox","--window-size=800,600","--lang=fr"],"excludeSwitches":["enable-automation"]},"platformName":"linux"}}}`},
		{`{"se:name":{"a":null,"b":1},"browserName":"chromium"}`,
			`{"capabilities":{"alwaysMatch":{"browserName":"chromium","goog:chromeOptions":{"args":["--headless=new","--no-sandbox","--window-size=1280,720"],"binary":"/usr/bin/chromium","excludeSwitches":["enable-automation"]},"se:name":{"b":1}}}}`},
	} {
		got, err := Capabilities(args, tc.user)
		if err != nil || string(got) != tc.want {
			t.Errorf("Capabilities(%s):\n got %s %v\nwant %s", tc.user, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{`, `[]`, `"chrome"`, `null`, `{"a":1}x`} {
		if _, err := Capabilities(args, bad); err == nil {
			t.Errorf("Capabilities(%s) accepted", bad)
		}
	}
}
