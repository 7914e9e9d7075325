package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// TestTakeOverEndsQueuedAndRunningWrites: a person takes a tab over while
// one write runs on it (a long type) and another — already approved —
// waits its turn behind it. The waiting one ends TAKEN_OVER, not
// executed, with nothing sent; the running one stops at its next key,
// TAKEN_OVER with its outcome unknown (it sent some keys), and the ledger
// says so. No key or click reaches the page after the take-over.
func TestTakeOverEndsQueuedAndRunningWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var keys, clicks atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/key":
			keys.Add(1)
		case "/click":
			clicks.Add(1)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<textarea aria-label="Notes" oninput="navigator.sendBeacon('/key')"></textarea>`+
				`<button onclick="fetch('/click')">Pay</button>`)
		}
	}))
	t.Cleanup(srv.Close)
	e.ok("open", srv.URL+"/")
	e.ok("policy", "set", "click", "ask")

	typing := make(chan result, 1)
	go func() {
		typing <- e.run("--json", "--op-id", "long-type", "type", `role=textbox[name="Notes"]`, strings.Repeat("a", 3000))
	}()
	eventually(t, "keys reaching the page", func() bool { return keys.Load() >= 10 })
	clicking := make(chan result, 1)
	go func() { clicking <- e.run("--json", "--op-id", "queued-click", "click", `role=button[name="Pay"]`) }()
	var pending struct {
		Approvals []struct {
			ID string `json:"approval_id"`
		} `json:"approvals"`
	}
	eventually(t, "the click waiting for approval", func() bool {
		e.okJSON(&pending, "approvals")
		return len(pending.Approvals) == 1
	})
	e.ok("approve", pending.Approvals[0].ID) // it now waits behind the type
	e.ok("takeover")
	tookOver := time.Now()

	r := <-clicking
	if code, id, notExec := errorJSON(t, r); code != "TAKEN_OVER" || id != "queued-click" || !notExec {
		t.Errorf("the approved click queued behind the type: %s %s not_executed=%v %s", code, id, notExec, r.stdout)
	}
	select {
	case r = <-typing:
	case <-time.After(10 * time.Second):
		t.Fatal("the type went on after the take-over")
	}
	// It stops at its next key: it had about 2,900 to go (some 12 s, more
	// on a loaded machine, where the bound leaves room for the stop too).
	if d := time.Since(tookOver); d > 6*time.Second {
		t.Errorf("the type ended %v after the take-over", d)
	}
	if code, id, notExec := errorJSON(t, r); code != "TAKEN_OVER" || id != "long-type" || notExec {
		t.Errorf("the type running at the take-over: %s %s not_executed=%v %s", code, id, notExec, r.stdout)
	}
	// The page's beacons trail its keys, so what reached it is counted
	// once they have settled; after that nothing more may come.
	sent := settledCount(&keys)
	if sent >= 3000 {
		t.Errorf("all %d keys reached the page", sent)
	}
	if n := clicks.Load(); n != 0 {
		t.Errorf("the page saw %d clicks", n)
	}
	states := ledgerStates(e)
	if n := keys.Load(); n != sent {
		t.Errorf("%d more keys reached the page after the type had ended", n-sent)
	}
	if states["long-type"] != "unknown TAKEN_OVER" {
		t.Errorf("ledger: the cut-short type is %q", states["long-type"])
	}
	if s := states["queued-click"]; s != "not_executed TAKEN_OVER" {
		t.Errorf("ledger: the queued click, never sent, is %q, want not_executed TAKEN_OVER", s)
	}
}

// TestPersonInputTakesOver: in a browser loupe attached to (as in a headed
// one), trusted input that loupe did not send — a person's, here sent by
// another DevTools client, as the window would — hands the tab to the
// person at once; loupe's own clicks do not.
func TestPersonInputTakesOver(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, clicks := countingPage(t, `<h1>Shop</h1><button onclick="fetch('/hit')">Buy</button>`)
	_, endpoint := externalChromium(t)
	e.ok("attach", "--cdp", endpoint)
	e.ok("open", srv.URL+"/")
	s := startEvents(t, e, "--kind", "tab.taken_over")
	buy := `role=button[name="Buy"]`

	// A person clicks in the page.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr, err := cdp.DialWebsocket(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	conn := cdp.NewConn(tr)
	defer conn.Close()
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
			URL      string `json:"url"`
		} `json:"targetInfos"`
	}
	if err := conn.Browser().Call(ctx, "Target.getTargets", nil, &targets); err != nil {
		t.Fatal(err)
	}
	var page string
	for _, ti := range targets.TargetInfos {
		if ti.Type == "page" && strings.HasPrefix(ti.URL, srv.URL) {
			page = ti.TargetID
		}
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := conn.Browser().Call(ctx, "Target.attachToTarget", map[string]any{"targetId": page, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	person := conn.Session(att.SessionID)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := person.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": 300, "y": 300, "button": "left", "clickCount": 1}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if ev := s.next("tab.taken_over", nil); ev.State != "person_input" || ev.Epoch != 1 {
		t.Errorf("take-over by a person's input: %+v", ev)
	}
	r := e.run("--json", "click", buy)
	if code, _, notExec := errorJSON(t, r); code != "HUMAN_CONTROL" || !notExec {
		t.Errorf("an agent's click after the person's input: %s", r.stdout)
	}

	// Handed back, loupe's own clicks are its echo, not a person's.
	e.ok("resume")
	e.ok("click", buy)
	e.ok("click", buy)
	eventually(t, "loupe's clicks", func() bool { return clicks.Load() == 2 })
	if got := e.ok("tabs"); strings.Contains(got, "[human]") {
		t.Errorf("loupe's own clicks took the tab over: %s", got)
	}
}
