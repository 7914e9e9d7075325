package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// brokerClient is a remote agent's end of the broker: plain HTTP.
type brokerClient struct {
	t    *testing.T
	base string
}

// call posts an operation's input as session, with token, and decodes
// the reply.
func (b brokerClient) call(token, session, op string, in any) (int, apitype.OpResponse) {
	b.t.Helper()
	body, err := json.Marshal(in)
	if err != nil {
		b.t.Fatal(err)
	}
	req, err := http.NewRequest("POST", b.base+"/v1/browser/"+op, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Loupe-Session", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out apitype.OpResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		b.t.Fatalf("%s: reply is not JSON (%d): %s", op, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// ok is a call that must succeed; it returns the result.
func (b brokerClient) ok(token, session, op string, in any) json.RawMessage {
	b.t.Helper()
	code, out := b.call(token, session, op, in)
	if code != 200 || out.Error != nil {
		b.t.Fatalf("%s as %s: %d %+v", op, session, code, out.Error)
	}
	return out.Result
}

// refused is a call that must fail with status and code, not executed.
func (b brokerClient) refused(token, session, op string, in any, status int, code apitype.Code) {
	b.t.Helper()
	got, out := b.call(token, session, op, in)
	if got != status || out.Error == nil || out.Error.Code != code || !out.Error.NotExecuted {
		b.t.Fatalf("%s as %q: got %d %+v, want %d %s not executed", op, session, got, out.Error, status, code)
	}
}

// TestBroker drives the broker as a remote agent would: a host
// registered, two remote sessions and the person's own tab in one
// browser, rotation and revocation.
func TestBroker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	// The person's own tab.
	var mine struct {
		Surface string `json:"surface_id"`
	}
	e.okJSON(&mine, "open", srv.Page("basic.html"))

	if r := e.run("broker", "serve", "--addr", "0.0.0.0:0"); r.code != 2 {
		t.Fatalf("a non-loopback address: exit %d, want 2 (usage)\n%s%s", r.code, r.stdout, r.stderr)
	}
	var served struct{ URL string }
	e.okJSON(&served, "broker", "serve")
	var again struct{ URL string }
	e.okJSON(&again, "broker", "serve")
	if !strings.HasPrefix(served.URL, "http://127.0.0.1:") || again.URL != served.URL {
		t.Fatalf("broker serve: %q then %q", served.URL, again.URL)
	}
	var reg struct {
		Generation int64
		Token      string
	}
	e.okJSON(&reg, "broker", "register", "--host", "h1")
	if reg.Generation != 1 || reg.Token == "" {
		t.Fatalf("register: %+v", reg)
	}
	b := brokerClient{t: t, base: served.URL}
	tok := reg.Token

	// Capabilities, and an operation not offered.
	req, _ := http.NewRequest("GET", served.URL+"/v1/capabilities", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var caps struct {
		Version    string
		Operations []struct{ Name string }
	}
	err = json.NewDecoder(resp.Body).Decode(&caps)
	resp.Body.Close()
	if err != nil || caps.Version == "" || len(caps.Operations) == 0 {
		t.Fatalf("capabilities: %v %+v", err, caps)
	}
	b.refused(tok, "a", "takeover", map[string]any{}, http.StatusNotImplemented, apitype.TransportUnsupported)
	b.refused(tok, "", "snapshot", map[string]any{}, http.StatusBadRequest, apitype.BadInput)
	b.refused("", "a", "snapshot", map[string]any{}, http.StatusUnauthorized, apitype.NoGrant)

	// Session a opens a tab of its own, reads it, clicks in it.
	var nav struct {
		Surface string `json:"surface_id"`
	}
	if err := json.Unmarshal(b.ok(tok, "a", "open", map[string]any{"url": srv.Page("basic.html")}), &nav); err != nil {
		t.Fatal(err)
	}
	if nav.Surface == "" || nav.Surface == mine.Surface {
		t.Fatalf("session a's first open must open a tab of its own, not %q (the person's is %s)", nav.Surface, mine.Surface)
	}
	var snap struct{ Text string }
	if err := json.Unmarshal(b.ok(tok, "a", "snapshot", map[string]any{}), &snap); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`button "Cancel" \[ref=(e\d+)\]`).FindStringSubmatch(snap.Text)
	if m == nil {
		t.Fatalf("no Cancel button in session a's snapshot:\n%s", snap.Text)
	}
	ref := m[1]
	if code, out := b.call(tok, "a", "click", map[string]any{"ref": ref}); code != 200 || out.OperationID == "" {
		t.Fatalf("click: %d %+v", code, out.Error)
	}

	// Session b: nothing of a's, nothing of the person's.
	b.refused(tok, "b", "click", map[string]any{"ref": ref}, http.StatusForbidden, apitype.NoGrant)
	b.refused(tok, "b", "snapshot", map[string]any{}, http.StatusForbidden, apitype.NoGrant)
	b.refused(tok, "b", "tab.activate", map[string]any{"surface_id": nav.Surface}, http.StatusForbidden, apitype.NoGrant)
	b.refused(tok, "b", "tab.close", map[string]any{"surface_id": nav.Surface}, http.StatusForbidden, apitype.NoGrant)
	b.refused(tok, "a", "tab.activate", map[string]any{"surface_id": mine.Surface}, http.StatusForbidden, apitype.NoGrant)
	b.refused(tok, "a", "tab.close", map[string]any{"surface_id": mine.Surface}, http.StatusForbidden, apitype.NoGrant)
	b.refused(tok, "a", "network.start", map[string]any{"surface_id": mine.Surface}, http.StatusForbidden, apitype.NoGrant)
	if got := e.ok("text"); strings.Contains(got, "clicked-basic-cancel") {
		t.Fatalf("session a's click reached the person's tab:\n%s", got)
	}
	var tabs struct {
		Tabs []struct {
			ID string `json:"id"`
		}
	}
	e.okJSON(&tabs, "tabs")
	if len(tabs.Tabs) != 2 {
		t.Fatalf("tabs: want the person's and session a's, got %+v", tabs.Tabs)
	}

	// Each remote session's tab list holds its own tabs only.
	var listed struct {
		Tabs []struct {
			ID string `json:"id"`
		}
	}
	if err := json.Unmarshal(b.ok(tok, "a", "tabs", map[string]any{}), &listed); err != nil || len(listed.Tabs) != 1 || listed.Tabs[0].ID != nav.Surface {
		t.Fatalf("session a's tabs: %+v %v", listed, err)
	}
	if err := json.Unmarshal(b.ok(tok, "b", "tabs", map[string]any{}), &listed); err != nil || len(listed.Tabs) != 0 {
		t.Fatalf("session b's tabs: %+v %v", listed, err)
	}
	if g := remoteGrants(e); len(g["remote:h1#1/a"]) != 1 || g["remote:h1#1/a"][0] != nav.Surface {
		t.Fatalf("session a's grant should hold its tab %s: %v", nav.Surface, g)
	}

	// Rotation: the old token is refused, the new one works, and the old
	// generation's grants are revoked: its tab is no longer its session's.
	var reg2 struct {
		Generation int64
		Token      string
	}
	e.okJSON(&reg2, "broker", "register", "--host", "h1")
	if reg2.Generation != 2 || reg2.Token == tok {
		t.Fatalf("register again: %+v", reg2)
	}
	b.refused(tok, "a", "snapshot", map[string]any{}, http.StatusUnauthorized, apitype.NoGrant)
	if g := remoteGrants(e); g["remote:h1#1/a"] != nil {
		t.Fatalf("the old generation still holds a grant: %v", g)
	}
	b.refused(reg2.Token, "a", "click", map[string]any{"ref": ref}, http.StatusForbidden, apitype.NoGrant)
	b.ok(reg2.Token, "a", "open", map[string]any{"url": srv.Page("basic.html")})

	// Revocation.
	e.ok("broker", "revoke", "h1")
	b.refused(reg2.Token, "a", "snapshot", map[string]any{}, http.StatusUnauthorized, apitype.NoGrant)
	if out := e.ok("broker", "hosts"); !strings.Contains(out, "h1  generation 2") || !strings.Contains(out, "revoked") {
		t.Fatalf("broker hosts:\n%s", out)
	}
	// Registered again after the revocation, the host starts afresh.
	var reg3 struct{ Token string }
	e.okJSON(&reg3, "broker", "register", "--host", "h1")
	b.ok(reg3.Token, "a", "open", map[string]any{"url": srv.Page("basic.html")})
	b.ok(reg3.Token, "a", "snapshot", map[string]any{})

	// A remote write under an ask rule waits for the person, like any
	// agent's: answered from the local CLI (approve), then from the
	// dashboard (deny: not executed).
	e.ok("policy", "set", "click", "ask")
	remoteClick := func() <-chan apitype.OpResponse {
		var s struct{ Text string }
		if err := json.Unmarshal(b.ok(reg3.Token, "a", "snapshot", map[string]any{}), &s); err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`button "Cancel"[^\n]*\[ref=(e\d+)\]`).FindStringSubmatch(s.Text)
		if m == nil {
			t.Fatalf("no Cancel button in session a's snapshot:\n%s", s.Text)
		}
		done := make(chan apitype.OpResponse, 1)
		go func() {
			// Not b.call: no t.Fatal off the test's goroutine.
			req, _ := http.NewRequest("POST", served.URL+"/v1/browser/click", strings.NewReader(`{"ref":"`+m[1]+`"}`))
			req.Header.Set("Authorization", "Bearer "+reg3.Token)
			req.Header.Set("Loupe-Session", "a")
			var out apitype.OpResponse
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
			} else {
				out.Error = apitype.Errorf(apitype.Internal, "%v", err)
			}
			done <- out
		}()
		return done
	}
	waiting := func() string {
		var pending struct {
			Approvals []struct {
				ID   string `json:"approval_id"`
				Task string `json:"task"`
			} `json:"approvals"`
		}
		eventually(t, "the remote click waiting for approval", func() bool {
			e.okJSON(&pending, "approvals")
			return len(pending.Approvals) == 1
		})
		if got := pending.Approvals[0].Task; !strings.HasPrefix(got, "remote:h1#") || !strings.HasSuffix(got, "/a") {
			t.Fatalf("the approval names task %q, want session a's", got)
		}
		return pending.Approvals[0].ID
	}
	done := remoteClick()
	e.ok("approve", waiting())
	if out := <-done; out.Error != nil || out.OperationID == "" {
		t.Fatalf("the remote click approved from the CLI: %+v", out.Error)
	}
	done = remoteClick()
	id := waiting()
	dash := strings.SplitN(e.ok("dashboard"), "\n", 2)[0]
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	if resp, err := hc.Get(dash); err != nil || resp.StatusCode != 200 {
		t.Fatalf("signing in to the dashboard: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
	u, _ := url.Parse(dash)
	resp, err = hc.Post("http://"+u.Host+"/api/op", "application/json", strings.NewReader(`{"op":"deny","input":{"approval_id":"`+id+`"}}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("deny from the dashboard: %v %v", err, resp)
	}
	resp.Body.Close()
	if out := <-done; out.Error == nil || !out.Error.NotExecuted {
		t.Fatalf("the remote click denied on the dashboard: %+v", out.Error)
	}
	e.ok("policy", "unset", "click")

	// No token is kept in clear anywhere in the home: not in the hosts
	// file (mode 0600), the daemon's log or the ledger.
	fi, err := os.Stat(filepath.Join(e.home, "broker-hosts.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("broker-hosts.json: %v %v", fi, err)
	}
	_ = filepath.WalkDir(e.home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "sessions" {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil // a socket
		}
		for _, tok := range []string{tok, reg2.Token, reg3.Token} {
			if bytes.Contains(data, []byte(tok)) {
				t.Errorf("%s holds a token in clear", path)
			}
		}
		return nil
	})
}

// remoteGrants is the tabs of each task holding a grant, by task.
func remoteGrants(e *env) map[string][]string {
	var out struct {
		Grants []struct {
			Task string
			Tabs []string
		}
	}
	e.okJSON(&out, "tasks")
	m := map[string][]string{}
	for _, g := range out.Grants {
		m[g.Task] = g.Tabs
	}
	return m
}
