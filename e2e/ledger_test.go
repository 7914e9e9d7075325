package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// countingPage serves html at / and counts the requests its script sends
// to /hit: how many clicks or keys reached the page.
func countingPage(t *testing.T, html string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hit" {
			n.Add(1)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, html)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// ledgerEntry is what the tests read of a ledger entry.
type ledgerEntry struct {
	ID     string `json:"operation_id"`
	Op     string `json:"op"`
	State  string `json:"state"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// ledgerOps lists the ledger's entries through the CLI.
func ledgerOps(e *env, args ...string) []ledgerEntry {
	e.t.Helper()
	var out struct {
		Operations []ledgerEntry `json:"operations"`
	}
	e.okJSON(&out, append([]string{"ops"}, args...)...)
	return out.Operations
}

// ledgerStates is each ledger entry's "state code", by operation id.
func ledgerStates(e *env) map[string]string {
	e.t.Helper()
	states := map[string]string{}
	for _, op := range ledgerOps(e) {
		states[op.ID] = op.State + " " + op.Code
	}
	return states
}

// errorJSON is a failed command's --json error.
func errorJSON(t *testing.T, r result) (code, opID string, notExecuted bool) {
	t.Helper()
	var out struct {
		Error struct {
			Code        string `json:"code"`
			NotExecuted bool   `json:"not_executed"`
			OperationID string `json:"operation_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("not a JSON error (exit %d): %s %s", r.code, r.stdout, r.stderr)
	}
	return out.Error.Code, out.Error.OperationID, out.Error.NotExecuted
}

// TestLedgerOperationIDs: every write is in the ledger under its id; an id
// is used once, ever — also after the daemon restarts — and a reuse is
// refused, not executed, naming the original's outcome.
func TestLedgerOperationIDs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, clicks := countingPage(t, `<button onclick="fetch('/hit')">Hit</button>`)
	e.ok("open", srv.URL+"/")
	e.ok("snapshot")
	var res struct {
		OperationID string `json:"operation_id"`
		Executed    bool   `json:"executed"`
	}
	e.okJSON(&res, "--op-id", "pay-1", "click", "role=button[name=\"Hit\"]")
	if res.OperationID != "pay-1" || !res.Executed {
		t.Fatalf("click result: %+v", res)
	}
	eventually(t, "the click's request", func() bool { return clicks.Load() == 1 })

	r := e.run("--json", "--op-id", "pay-1", "click", "role=button[name=\"Hit\"]")
	if code, id, notExec := errorJSON(t, r); r.code != 1 || code != "DUPLICATE_OPERATION" || id != "pay-1" || !notExec {
		t.Fatalf("reused id: exit %d %s %s not_executed=%v", r.code, code, id, notExec)
	}
	if r := e.run("--op-id", "pay-1", "click", "role=button[name=\"Hit\"]"); !strings.Contains(r.stderr, "executed") || !strings.Contains(r.stderr, "loupe ops show pay-1") {
		t.Errorf("the refusal should name the original's outcome and how to see it: %s", r.stderr)
	}
	// A write without an id gets one; reads get none.
	e.okJSON(&res, "click", "role=button[name=\"Hit\"]")
	if !strings.HasPrefix(res.OperationID, "op-") {
		t.Errorf("a write without --op-id: %+v", res)
	}
	all := ledgerOps(e)
	// The open, the click, the second click; the refused reuse left no row.
	if len(all) != 3 || all[2].Op != "open" || all[1].ID != "pay-1" || all[1].State != "executed" || all[1].Op != "click" || all[0].ID != res.OperationID {
		t.Fatalf("ledger (newest first): %+v", all)
	}
	// After a restart the id is still used.
	e.ok("daemon", "stop")
	e.ok("open", srv.URL+"/")
	r = e.run("--json", "--op-id", "pay-1", "click", "role=button[name=\"Hit\"]")
	if code, _, notExec := errorJSON(t, r); code != "DUPLICATE_OPERATION" || !notExec {
		t.Fatalf("reused id after a restart: %s not_executed=%v", code, notExec)
	}
	if n := clicks.Load(); n != 2 {
		t.Errorf("the page saw %d clicks, want 2 (a refused write must not run)", n)
	}
	if got := e.ok("ops", "show", "pay-1"); !strings.Contains(got, "pay-1 executed click") {
		t.Errorf("ops show: %q", got)
	}
	if r := e.run("ops", "show", "nope"); r.code != 1 || !strings.Contains(r.stderr, "no operation") {
		t.Errorf("ops show of an unknown id: exit %d %s", r.code, r.stderr)
	}
}

// TestLedgerDaemonKilledMidWrite: the daemon is killed while it types; the
// CLI reports OUTCOME_UNKNOWN naming the write (never not_executed), the
// restarted daemon lists it as unknown, and nothing replays it.
func TestLedgerDaemonKilledMidWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, keys := countingPage(t, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)
	e.ok("open", srv.URL+"/")
	e.ok("snapshot")
	var st struct{ PID int }
	e.okJSON(&st, "daemon", "status")

	done := make(chan result, 1)
	go func() {
		done <- e.run("--json", "--op-id", "notes-1", "type", "role=textbox[name=\"Notes\"]", strings.Repeat("a", 3000))
	}()
	eventually(t, "keys reaching the page", func() bool { return keys.Load() >= 20 })
	if err := kill(st.PID); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the CLI did not return after the daemon was killed")
	}
	if code, id, notExec := errorJSON(t, r); code != "OUTCOME_UNKNOWN" || id != "notes-1" || notExec {
		t.Fatalf("type with the daemon killed: exit %d %s %s not_executed=%v", r.code, code, id, notExec)
	}
	e.waitNoProcesses(15 * time.Second)
	sent := settledCount(keys)

	// The next daemon finds the write unsettled: unknown, with why.
	unknown := ledgerOps(e, "--state", "unknown")
	if len(unknown) != 1 || unknown[0].ID != "notes-1" || unknown[0].Op != "type" || unknown[0].Code != "OUTCOME_UNKNOWN" || unknown[0].Reason == "" {
		t.Fatalf("unknown operations after the restart: %+v", unknown)
	}
	// Nothing replays it: a new browser, no more keys.
	e.ok("open", srv.URL+"/")
	e.ok("snapshot")
	if n := keys.Load(); n != sent {
		t.Errorf("%d keys reached the page after the restart", n-sent)
	}
	if r := e.run("--json", "--op-id", "notes-1", "type", "role=textbox[name=\"Notes\"]", "again"); r.code != 1 {
		t.Errorf("the unknown write's id was taken again: %s", r.stdout)
	}
}

// eventually polls cond (every 20 ms, the page's requests have no event
// here) until it holds or 15 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBrowserKilledBetweenCommands: the next write after the browser died
// is BROWSER_GONE, not executed, rather than a write to a fresh blank
// page; the one after starts a new browser, whose surface ids and refs go
// on from the old ones, so the old ones are refused, never reissued.
func TestBrowserKilledBetweenCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, keys := countingPage(t, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)
	e.ok("open", srv.URL+"/")
	var snap struct {
		SurfaceID string `json:"surface_id"`
		Refs      []struct {
			Ref  string `json:"ref"`
			Role string `json:"role"`
		} `json:"refs"`
	}
	e.okJSON(&snap, "snapshot")
	if len(snap.Refs) == 0 {
		t.Fatal("no refs")
	}
	oldRef, oldSurface := snap.Refs[len(snap.Refs)-1].Ref, snap.SurfaceID
	s := startEvents(t, e, "--kind", "browser.gone")
	for _, pid := range e.browserProcesses() {
		_ = kill(pid)
	}
	waitNoBrowser(e, 15*time.Second)
	// "Between commands": once the daemon has seen the browser go (a call
	// racing the kill may instead meet the dead connection, and its outcome
	// is then honestly unknown).
	s.next("browser.gone", nil)

	r := e.run("--json", "type", oldRef, "hello")
	if code, _, notExec := errorJSON(t, r); code != "BROWSER_GONE" || !notExec {
		t.Fatalf("type after the browser died: exit %d %s not_executed=%v\n%s", r.code, code, notExec, r.stdout)
	}
	// The next call starts a new browser; the old ref and surface are gone.
	r = e.run("--json", "type", oldRef, "hello")
	if code, _, notExec := errorJSON(t, r); code != "STALE_REF" || !notExec {
		t.Fatalf("an old ref in the new browser: exit %d %s not_executed=%v\n%s", r.code, code, notExec, r.stdout)
	}
	if r := e.run("--json", "switch", oldSurface); r.code != 1 || !strings.Contains(r.stdout, "SURFACE_CLOSED") {
		t.Errorf("switch to a surface of the old browser: %s", r.stdout)
	}
	e.okJSON(&snap, "snapshot")
	if snap.SurfaceID == oldSurface {
		t.Errorf("the new browser's tab reuses surface id %s", oldSurface)
	}
	if n := keys.Load(); n != 0 {
		t.Errorf("%d keys reached a page", n)
	}
	gone := false
	for _, o := range ledgerOps(e, "--state", "not_executed") {
		gone = gone || o.Op == "type" && o.Code == "BROWSER_GONE"
	}
	if !gone {
		t.Errorf("the ledger should say the first type did not run: %+v", ledgerOps(e))
	}
}

// TestTakeOverAndResume: while a person has a tab, an agent can neither
// read nor act on it (HUMAN_CONTROL, not executed); session-wide calls go
// on; after resume every earlier ref of the tab is stale, and a fresh
// snapshot's refs act.
func TestTakeOverAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, clicks := countingPage(t, `<h1>Checkout</h1><button onclick="fetch('/hit')">Pay</button>`)
	e.ok("open", srv.URL+"/")
	m := startMCP(t, e, "--daemon")
	pay := refAfter(t, m.ok("browser_snapshot", nil), "Checkout", "button", "Pay")

	if got := e.ok("takeover"); !strings.Contains(got, "is yours") {
		t.Fatalf("takeover: %s", got)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"browser_snapshot", nil}, {"browser_click", map[string]any{"ref": pay}}, {"browser_read", map[string]any{"what": "text"}}} {
		r := m.call(call.tool, call.args)
		if code, notExec := errorOf(t, r); code != "HUMAN_CONTROL" || !notExec || strings.Contains(r.text, "loupe ") {
			t.Errorf("%s during a take-over: %s", call.tool, r.text)
		}
	}
	m.ok("browser_tabs", nil) // the session, not the tab
	if n := clicks.Load(); n != 0 {
		t.Fatalf("the page saw %d clicks during the take-over", n)
	}
	if r := e.run("click", pay); r.code != 1 || !strings.Contains(r.stderr, "HUMAN_CONTROL") {
		t.Errorf("a CLI click during the take-over: %s", r.stderr)
	}

	if got := e.ok("resume"); !strings.Contains(got, "agents' again") {
		t.Fatalf("resume: %s", got)
	}
	if code, notExec := errorOf(t, m.call("browser_click", map[string]any{"ref": pay})); code != "STALE_REF" || !notExec {
		t.Errorf("a ref from before the take-over: %s", code)
	}
	fresh := refAfter(t, m.ok("browser_snapshot", nil), "Checkout", "button", "Pay")
	if fresh == pay {
		t.Errorf("the fresh snapshot reissued %s", pay)
	}
	m.ok("browser_click", map[string]any{"ref": fresh})
	eventually(t, "the click after resume", func() bool { return clicks.Load() == 1 })
}

// TestApprovalPolicy: a write under an `ask` rule waits, with nothing
// sent, until a person approves it (then it runs) or denies it (DENIED);
// no answer in time is APPROVAL_TIMEOUT; a take-over ends the wait
// (TAKEN_OVER); `deny` refuses at once; each is settled in the ledger; the
// policy outlives the daemon.
func TestApprovalPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, clicks := countingPage(t, `<button onclick="fetch('/hit')">Pay</button>`)
	e.ok("open", srv.URL+"/")
	e.ok("policy", "set", "click", "ask")
	pay := "role=button[name=\"Pay\"]"

	click := func(id string) chan result {
		done := make(chan result, 1)
		go func() { done <- e.run("--json", "--op-id", id, "click", pay) }()
		return done
	}
	waiting := func() string {
		var out struct {
			Approvals []struct {
				ID string `json:"approval_id"`
				Op string `json:"op"`
			} `json:"approvals"`
		}
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) { // the CLI's request has no event to wait on
			e.okJSON(&out, "approvals")
			if len(out.Approvals) == 1 && out.Approvals[0].Op == "click" {
				return out.Approvals[0].ID
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("no click waiting for approval: %+v", out)
		return ""
	}

	// Approved: it goes out.
	done := click("ask-1")
	id := waiting()
	if n := clicks.Load(); n != 0 {
		t.Fatalf("the page saw a click before the approval")
	}
	e.ok("approve", id)
	if r := <-done; r.code != 0 {
		t.Fatalf("the approved click: %s", r.stdout)
	}
	eventually(t, "the approved click", func() bool { return clicks.Load() == 1 })

	// Denied: not sent.
	done = click("ask-2")
	e.ok("deny", waiting())
	if code, _, notExec := errorJSON(t, <-done); code != "DENIED" || !notExec {
		t.Errorf("the denied click: %s not_executed=%v", code, notExec)
	}
	// Taken over while waiting: not sent.
	done = click("ask-3")
	waiting()
	e.ok("takeover")
	if code, _, notExec := errorJSON(t, <-done); code != "TAKEN_OVER" || !notExec {
		t.Errorf("the click waiting during a take-over: %s not_executed=%v", code, notExec)
	}
	e.ok("resume")
	// No answer in time.
	e.ok("policy", "set", "approval-timeout", "300ms")
	if code, _, notExec := errorJSON(t, <-click("ask-4")); code != "APPROVAL_TIMEOUT" || !notExec {
		t.Errorf("the unanswered click: %s not_executed=%v", code, notExec)
	}
	// deny refuses at once, and outlives the daemon.
	e.ok("policy", "set", "input", "deny")
	e.ok("policy", "set", "click", "deny")
	e.ok("daemon", "stop")
	e.ok("open", srv.URL+"/")
	if code, _, notExec := errorJSON(t, e.run("--json", "click", pay)); code != "DENIED" || !notExec {
		t.Errorf("a click under deny after a restart: %s not_executed=%v", code, notExec)
	}
	if got := e.ok("policy"); !strings.Contains(got, "click deny") || !strings.Contains(got, "approvals wait at most 300ms") {
		t.Errorf("policy: %s", got)
	}
	if n := clicks.Load(); n != 1 {
		t.Errorf("the page saw %d clicks, want the one approved", n)
	}
	states := ledgerStates(e)
	// Every refusal is in the ledger, not executed, with its code.
	for id, want := range map[string]string{"ask-1": "executed ", "ask-2": "not_executed DENIED", "ask-3": "not_executed TAKEN_OVER", "ask-4": "not_executed APPROVAL_TIMEOUT"} {
		if got := states[id]; got != want {
			t.Errorf("ledger for %s: %q, want %q", id, got, want)
		}
	}
}

// TestBrowserKilledMidWrite: the browser dies while a write's input is
// going out: its outcome is unknown (not_executed false), so recorded, and
// the session says BROWSER_GONE rather than carry on in a new browser.
func TestBrowserKilledMidWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, keys := countingPage(t, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)
	e.ok("open", srv.URL+"/")
	e.ok("snapshot")
	done := make(chan result, 1)
	go func() {
		done <- e.run("--json", "--op-id", "notes-2", "type", "role=textbox[name=\"Notes\"]", strings.Repeat("b", 3000))
	}()
	eventually(t, "keys reaching the page", func() bool { return keys.Load() >= 20 })
	for _, pid := range e.browserProcesses() {
		_ = kill(pid)
	}
	r := <-done
	if code, id, notExec := errorJSON(t, r); code != "BROWSER_GONE" || id != "notes-2" || notExec {
		t.Fatalf("type with the browser killed under it: exit %d %s %s not_executed=%v", r.code, code, id, notExec)
	}
	unknown := ledgerOps(e, "--state", "unknown")
	if len(unknown) != 1 || unknown[0].ID != "notes-2" || unknown[0].Code != "BROWSER_GONE" {
		t.Fatalf("the ledger should hold the write as unknown: %+v", unknown)
	}
}

// settledCount is n once it has not moved for a second (at most 10 s): a
// dead browser's last requests may still be on their way to the server,
// and on a loaded machine a beacon may trail its key by some hundred ms.
func settledCount(n *atomic.Int32) int32 {
	last, since, deadline := n.Load(), time.Now(), time.Now().Add(10*time.Second)
	for time.Since(since) < time.Second && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		if v := n.Load(); v != last {
			last, since = v, time.Now()
		}
	}
	return last
}

// TestDocumentToken: a write carrying the document token of the snapshot
// it was planned on is refused, not executed, once the surface shows
// another document; with the current token it runs.
func TestDocumentToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	var snap struct {
		Token string `json:"document_token"`
	}
	e.okJSON(&snap, "snapshot")
	if !strings.HasPrefix(snap.Token, "d-") {
		t.Fatalf("snapshot without a document token: %+v", snap)
	}
	e.ok("--doc", snap.Token, "scroll", "--dy", "10")
	e.ok("open", srv.Page("dupes.html"))
	r := e.run("--json", "--doc", snap.Token, "scroll", "--dy", "10")
	if code, _, notExec := errorJSON(t, r); code != "STALE_REF" || !notExec {
		t.Fatalf("a write planned on the earlier document: %s not_executed=%v", code, notExec)
	}
	var again struct {
		Token string `json:"document_token"`
	}
	e.okJSON(&again, "snapshot")
	if again.Token == snap.Token || again.Token == "" {
		t.Errorf("the new document has token %q (the old one was %q)", again.Token, snap.Token)
	}
	e.ok("--doc", again.Token, "scroll", "--dy", "10")
}

// TestRefusalsAreInTheLedger: a write the approval policy denies, and one
// refused because a person holds the tab, are each in the ledger as not
// executed with their code, under the operation id the caller was told;
// nothing reached the page.
func TestRefusalsAreInTheLedger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, hits := countingPage(t, `<button onclick="fetch('/hit')">Buy</button>`)
	e.ok("open", srv.URL+"/")
	e.ok("policy", "set", "click", "deny")
	refused := func(code string, args ...string) string {
		t.Helper()
		r := e.run(append([]string{"--json"}, args...)...)
		var out struct {
			Error struct {
				Code        string `json:"code"`
				OperationID string `json:"operation_id"`
				NotExecuted bool   `json:"not_executed"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.Error.Code != code || !out.Error.NotExecuted || out.Error.OperationID == "" {
			t.Fatalf("loupe %s: %s %s, want %s with an operation id", strings.Join(args, " "), r.stdout, r.stderr, code)
		}
		return out.Error.OperationID
	}
	denied := refused("DENIED", "--op-id", "pay-1", "click", "role=button")
	e.ok("policy", "unset", "click")
	var st struct{ Tabs []struct{ ID string } }
	e.okJSON(&st, "tabs")
	e.ok("takeover")
	held := refused("HUMAN_CONTROL", "click", "role=button")
	states := ledgerStates(e)
	if denied != "pay-1" || states[denied] != "not_executed DENIED" || states[held] != "not_executed HUMAN_CONTROL" {
		t.Fatalf("ledger: %v (denied %s, held %s)", states, denied, held)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("a refused click reached the page %d times", n)
	}
	// The refused id is used: a retry with it is a duplicate, not a new write.
	e.ok("policy", "reset")
	e.ok("resume")
	refused("DUPLICATE_OPERATION", "--op-id", "pay-1", "click", "role=button")
}

// TestLedgerNamesTheSurfaceActedOn: a takeover of another tab is recorded
// on that tab, a tab the write opened on the new tab, a command on no tab
// on none; ops show prints what --json gives.
func TestLedgerNamesTheSurfaceActedOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("basic.html"))
	e.ok("--op-id", "new-tab", "tab", "new", srv.Page("dupes.html"))
	var tabs struct {
		Tabs []struct {
			ID string `json:"id"`
		} `json:"tabs"`
	}
	e.okJSON(&tabs, "tabs")
	if len(tabs.Tabs) != 2 {
		t.Fatalf("tabs: %+v", tabs)
	}
	first, second := tabs.Tabs[0].ID, tabs.Tabs[1].ID
	e.ok("switch", first)
	e.ok("--op-id", "hold-2", "takeover", second)
	e.ok("--op-id", "rule", "policy", "set", "click", "ask")
	var got map[string]string = map[string]string{}
	var out struct {
		Operations []struct {
			ID      string `json:"operation_id"`
			Surface string `json:"surface_id"`
		} `json:"operations"`
	}
	e.okJSON(&out, "ops")
	for _, o := range out.Operations {
		got[o.ID] = o.Surface
	}
	if got["new-tab"] != second || got["hold-2"] != second || got["rule"] != "" {
		t.Fatalf("surfaces in the ledger: %v (tabs %s, %s)", got, first, second)
	}
	show := e.ok("ops", "show", "hold-2")
	for _, want := range []string{"surface   " + second + " (epoch", "input     {"} {
		if !strings.Contains(show, want) {
			t.Errorf("ops show lacks %q:\n%s", want, show)
		}
	}
}

// TestApprovalsShowTheWrite: a write waiting for approval shows what it
// will send and who asks: the text to fill (a password's masked), the
// element's locator, and the client (cli), in text and JSON.
func TestApprovalsShowTheWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, _ := countingPage(t, `<label>Name <input id="n"></label><label>Password <input id="p" type="password"></label>`)
	e.ok("open", srv.URL+"/")
	e.ok("policy", "set", "fill", "ask")
	pending := func() (string, string) {
		t.Helper()
		var out struct {
			Approvals []struct {
				ID     string          `json:"approval_id"`
				Client string          `json:"client"`
				Input  json.RawMessage `json:"input"`
			} `json:"approvals"`
		}
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) { // no event for the CLI's wait
			e.okJSON(&out, "approvals")
			if len(out.Approvals) == 1 {
				a := out.Approvals[0]
				if a.Client != "cli" {
					t.Errorf("approval asked by %q, want cli", a.Client)
				}
				return a.ID, string(a.Input)
			}
		}
		t.Fatal("no write waiting")
		return "", ""
	}
	for _, c := range []struct{ field, text, shown string }{
		{"Name", "Ada Lovelace", `"text":"Ada Lovelace"`},
		{"Password", "hunter2-secret", `"secret":true`},
	} {
		done := make(chan result, 1)
		go func() { done <- e.run("fill", `role=textbox[name="`+c.field+`"]`, c.text) }()
		id, input := pending()
		text := e.ok("approvals")
		if !strings.Contains(input, c.shown) || !strings.Contains(text, c.shown) || !strings.Contains(text, "by cli") || !strings.Contains(text, "element role=textbox") {
			t.Errorf("approval of the %s fill: json %s\ntext %s", c.field, input, text)
		}
		if strings.Contains(input+text, "hunter2") {
			t.Errorf("the password is shown: %s %s", input, text)
		}
		e.ok("deny", id)
		<-done
	}

	// An answer is recorded on the surface of the write it answers, not
	// on the answerer's current one.
	var st struct {
		Active string `json:"active_surface_id"`
	}
	e.okJSON(&st, "status")
	// A write that names a ref shows the element's snapshot line.
	ref := refOf(t, e.ok("snapshot"), "textbox", "Name")
	done := make(chan result, 1)
	go func() { done <- e.run("fill", ref, "x") }()
	id, _ := pending()
	if text := e.ok("approvals"); !strings.Contains(text, `element textbox "Name" [ref=`+ref+`], role=textbox[name="Name"]`) {
		t.Errorf("the approval of a write by ref does not show the element's line:\n%s", text)
	}
	e.ok("tab", "new")
	e.ok("--op-id", "the-deny", "deny", id)
	<-done
	var op struct {
		Surface string `json:"surface_id"`
	}
	e.okJSON(&op, "ops", "show", "the-deny")
	if op.Surface != st.Active {
		t.Errorf("the deny is recorded on %q, want the denied write's %s", op.Surface, st.Active)
	}
}
