package e2e

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// refOf finds the ref on the snapshot line with that role and name.
func refOf(t *testing.T, snap, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^\s*- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*\[ref=(e\d+)\]`)
	m := re.FindAllStringSubmatch(snap, -1)
	if len(m) != 1 {
		t.Fatalf("want one %s %q with a ref, found %d in:\n%s", role, name, len(m), snap)
	}
	return m[0][1]
}

func TestUsageErrorsTouchNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"click", "@x1"}, `"x1" is not a ref`},
		{[]string{"click", "x1"}, `"x1" is not a ref`},
		{[]string{"click", `role=button[name=Save]`}, "TARGET: "},
		{[]string{"click"}, "missing TARGET"},
		{[]string{"click", "@e1", "extra"}, `unexpected argument "extra"`},
		{[]string{"click", "--bogus", "@e1"}, "unknown flag --bogus"},
		{[]string{"fill", "@e1"}, "missing TEXT"},
		{[]string{"open"}, "missing URL"},
		{[]string{"open", "http://exa mple.com"}, "is not a URL"},
		{[]string{"open", "javascript:alert(1)"}, "not navigable"},
		{[]string{"press", "Control+Nope"}, `unknown key "Nope"`},
		{[]string{"wait"}, "exactly one of"},
		{[]string{"wait", "--text", "x", "--timeout", "banana"}, "want a duration"},
		{[]string{"scroll", "--dy", "nine"}, "is not a finite number"},
		{[]string{"--session", "../etc", "snapshot"}, "starting with a letter or digit"},
		{[]string{"--session", strings.Repeat("s", 65), "snapshot"}, "1 to 64"},
		{[]string{"scroll", "--dy", "1e308"}, "CSS pixels between -1e+06 and 1e+06"},
		{[]string{"scroll", "--dx", "NaN"}, "is not a finite number"},
		{[]string{"scroll", "--dy", "Inf"}, "is not a finite number"},
		{[]string{"open", "localhost:99999"}, "port 99999 is not between 1 and 65535"},
		{[]string{"--timeout", "1ns", "snapshot"}, "from 1ms to 24h"},
		{[]string{"--timeout", "9223372036854775807ns", "snapshot"}, "from 1ms to 24h"},
		{[]string{"wait", "--text", "x", "--timeout", "-5ms"}, "negative"},
		{[]string{"wait", "--text", "x", "--timeout", "9223372036854775807"}, "at most 24h"},
		{[]string{"tab"}, "tab needs a command"},
		{[]string{"tab", "activate"}, "missing ID"},
	}
	for _, c := range cases {
		r := e.run(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("loupe %v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := e.run("--json", "click", "@x1")
	var got struct{ Error struct{ Code string } }
	if r.code != 2 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Error.Code != "BAD_INPUT" {
		t.Errorf("--json usage error: exit %d, stdout %q", r.code, r.stdout)
	}
	// None of that started a daemon or a browser.
	if _, err := os.Stat(filepath.Join(e.home, "loupe.sock")); !os.IsNotExist(err) {
		t.Errorf("a usage error started the daemon (socket: %v)", err)
	}
	if p := e.processes(); len(p) != 0 {
		t.Errorf("processes started by usage errors: %v", p)
	}
}

func TestEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	out := e.ok("open", srv.Page("form.html"))
	if !strings.Contains(out, `"form fixture"`) {
		t.Fatalf("open printed %q", out)
	}
	snap := e.ok("snapshot")
	if !strings.HasPrefix(snap, "surface s1: \"form fixture\" "+srv.Page("form.html")+"\n") {
		t.Fatalf("first line of snapshot:\n%s", snap)
	}
	e.ok("fill", "@"+refOf(t, snap, "textbox", "Controlled"), "typed by loupe")
	e.ok("click", refOf(t, snap, "button", "Go"))
	if got := e.ok("value", refOf(t, snap, "textbox", "Controlled")); got != "typed by loupe\n" {
		t.Errorf("value: %q", got)
	}
	if got := e.ok("eval", "document.getElementById('echo').textContent"); got != "\"state:typed by loupe\"\n" {
		t.Errorf("page state after fill: %q", got)
	}
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"clicked-go:true\"\n" {
		t.Errorf("status after click: %q", got)
	}
	var js struct {
		SurfaceID string `json:"surface_id"`
		Refs      []struct{ Ref, Role, Name string }
		Text      string
	}
	e.okJSON(&js, "snapshot")
	if js.SurfaceID != "s1" || len(js.Refs) < 10 || !strings.Contains(js.Text, "[ref=e1]") {
		t.Errorf("snapshot --json: %+v", js)
	}
	if got := e.ok("state", refOf(t, snap, "button", "Off")); !strings.Contains(got, "disabled") {
		t.Errorf("state of a disabled button: %q", got)
	}
	if got := e.ok("attr", refOf(t, snap, "textbox", "Email"), "type"); got != "email\n" {
		t.Errorf("attr: %q", got)
	}
	if got := e.ok("box", refOf(t, snap, "button", "Go")); !strings.Contains(got, "width=") {
		t.Errorf("box: %q", got)
	}
	e.ok("check", refOf(t, snap, "checkbox", "Agree"))
	e.ok("select", refOf(t, snap, "combobox", "Size"), "Medium")
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"size:m\"\n" {
		t.Errorf("status after select: %q", got)
	}
	e.ok("focus", refOf(t, snap, "textbox", "Keys"))
	e.ok("type", "hi")
	e.ok("press", "Shift+Home", "Backspace")
	if got := e.ok("value", refOf(t, snap, "textbox", "Keys")); got != "\n" {
		t.Errorf("value after Shift+Home Backspace: %q", got)
	}
	e.ok("scroll", "--dy", "400")
	e.ok("hover", refOf(t, snap, "button", "Hover me"))

	png := filepath.Join(t.TempDir(), "shot.png")
	if got := e.ok("screenshot", "-o", png); !strings.HasPrefix(got, png+" (") || !strings.Contains(got, "observation obs-") {
		t.Errorf("screenshot printed %q", got)
	}
	if b, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("screenshot file: %v", err)
	}
	var shot struct{ Path string }
	e.okJSON(&shot, "screenshot", "--full")
	if b, err := os.ReadFile(shot.Path); err != nil || !strings.HasPrefix(string(b), "\x89PNG") || !strings.HasPrefix(shot.Path, e.home) {
		t.Errorf("full screenshot %q: %v", shot.Path, err)
	}
	e.ok("screenshot", refOf(t, snap, "button", "Go"))

	// Navigation and waits.
	e.ok("click", refOf(t, snap, "link", "Next page"))
	e.ok("wait", "--url", "*/form2.html")
	e.ok("wait", "--text", "MK-SECOND", "--timeout", "2s")
	e.ok("back")
	if got := e.ok("wait", "--load"); !strings.Contains(got, "ok load") {
		t.Errorf("wait --load: %q", got)
	}
	if got := e.ok("eval", "location.pathname"); got != "\"/form.html\"\n" {
		t.Errorf("after back: %q", got)
	}
	e.ok("forward")
	e.ok("reload")
	if got := e.ok("eval", "location.pathname"); got != "\"/form2.html\"\n" {
		t.Errorf("after forward and reload: %q", got)
	}
	r := e.run("wait", "--text", "never on this page", "--timeout", "200ms")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "TIMEOUT: ") {
		t.Errorf("wait timeout: exit %d, %q", r.code, r.stderr)
	}

	// Tabs.
	e.ok("tab", "new", srv.Page("basic.html"))
	tabs := e.ok("tabs")
	if !strings.Contains(tabs, `* s2 "basic fixture"`) || !strings.Contains(tabs, `  s1 "second page"`) {
		t.Errorf("tabs:\n%s", tabs)
	}
	e.ok("tab", "activate", "s1")
	if got := e.ok("eval", "document.title"); got != "\"second page\"\n" {
		t.Errorf("active tab after activate: %q", got)
	}
	e.ok("tab", "close", "s2")
	r = e.run("tab", "activate", "s2")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "SURFACE_CLOSED") {
		t.Errorf("activating a closed tab: %d %q", r.code, r.stderr)
	}
	r = e.run("tab", "activate", "s77")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "SURFACE_NOT_FOUND") {
		t.Errorf("activating an unknown tab: %d %q", r.code, r.stderr)
	}
}

func TestStaleRefAndNavigationErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("form.html"))
	snap := e.ok("snapshot")
	goRef := refOf(t, snap, "button", "Go")
	// Same document: refs are kept.
	if again := e.ok("snapshot"); refOf(t, again, "button", "Go") != goRef {
		t.Fatal("ref changed between two snapshots of one document")
	}
	e.ok("open", srv.Page("form2.html"))
	// The new page has its own "Go" button; the old ref must not reach it.
	r := e.run("click", goRef)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "STALE_REF: ") {
		t.Fatalf("click with a ref from the previous page: exit %d, %q", r.code, r.stderr)
	}
	r = e.run("--json", "click", goRef)
	var got struct {
		Error struct {
			Code        string `json:"code"`
			Hint        string `json:"hint"`
			NotExecuted bool   `json:"not_executed"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Error.Code != "STALE_REF" || !got.Error.NotExecuted || got.Error.Hint == "" {
		t.Fatalf("--json stale ref: %q", r.stdout)
	}
	if got := e.ok("eval", "document.title"); got != "\"second page\"\n" {
		t.Fatalf("page after stale clicks: %q", got)
	}

	// A page that cannot load names the network error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	r = e.run("open", "http://"+closed+"/")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "NAVIGATION_FAILED") || !strings.Contains(r.stderr, "net::ERR_CONNECTION_REFUSED") {
		t.Fatalf("open of a closed port: exit %d, %q", r.code, r.stderr)
	}
}

func TestSocketAndSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("--session", "alpha", "open", srv.Page("basic.html"))
	e.ok("--session", "beta", "open", srv.Page("dupes.html"))
	st, err := os.Stat(filepath.Join(e.home, "loupe.sock"))
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket: %v %v", st.Mode(), err)
	}
	if st, err := os.Stat(e.home); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("home: %v %v", st.Mode(), err)
	}
	var status struct {
		Sessions []struct {
			Name string
			PID  int
		}
		Ledger struct{ Backend, Where string }
	}
	e.okJSON(&status, "daemon", "status")
	if len(status.Sessions) != 2 || status.Sessions[0].PID == status.Sessions[1].PID {
		t.Fatalf("sessions: %+v", status.Sessions)
	}
	if l := status.Ledger; l.Backend != "sqlite" || l.Where != filepath.Join(e.home, "ledger.db") {
		t.Errorf("the daemon's ledger: %+v, want SQLite in its home", l)
	}
	if got := e.ok("--session", "alpha", "eval", "document.title"); got != "\"basic fixture\"\n" {
		t.Errorf("alpha: %q", got)
	}
	if got := e.ok("--session", "beta", "eval", "document.title"); got != "\"dupes fixture\"\n" {
		t.Errorf("beta: %q", got)
	}
}
