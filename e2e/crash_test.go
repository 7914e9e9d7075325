package e2e

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// killRenderers kills the browser's renderer processes (as the kernel's
// OOM killer would): every tab's renderer crashes.
func killRenderers(t *testing.T, e *env) {
	t.Helper()
	n := 0
	for _, pid := range e.browserProcesses() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if bytes.Contains(b, []byte("--type=renderer")) {
			_ = kill(pid)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no renderer process to kill")
	}
}

// TestRendererCrashMidAction: a renderer dies while a write types into its
// tab. The write ends at once — TAB_CRASHED, its outcome unknown, so in
// the ledger — never as a 15-second TIMEOUT; the tab is handed to a
// person and reloaded at its last address; the agents can neither read
// nor act on it until the person resumes it, and then its old refs are
// stale. The event stream tells the crash and the reload.
func TestRendererCrashMidAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, keys := countingPage(t, `<h1>Notes</h1><textarea aria-label="Notes" oninput="navigator.sendBeacon('/hit')"></textarea>`)
	e.ok("open", srv.URL+"/")
	var snap struct {
		SurfaceID string `json:"surface_id"`
		Refs      []struct {
			Ref string `json:"ref"`
		} `json:"refs"`
	}
	e.okJSON(&snap, "snapshot")
	s := startEvents(t, e, "--kind", "tab.crashed")

	typing := make(chan result, 1)
	start := time.Now()
	go func() {
		typing <- e.run("--json", "--op-id", "notes-crash", "type", `role=textbox[name="Notes"]`, strings.Repeat("a", 3000))
	}()
	eventually(t, "keys reaching the page", func() bool { return keys.Load() >= 10 })
	killRenderers(t, e)
	var r result
	select {
	case r = <-typing:
	case <-time.After(10 * time.Second):
		t.Fatal("the type did not end after its renderer crashed")
	}
	if code, id, notExec := errorJSON(t, r); code != "TAB_CRASHED" || id != "notes-crash" || notExec {
		t.Fatalf("the type at the crash: %s %s not_executed=%v %s", code, id, notExec, r.stdout)
	}
	t.Logf("the type ended %v after it began", time.Since(start).Round(time.Millisecond))

	if ev := s.next("tab.crashed", nil); ev.SurfaceID != snap.SurfaceID || ev.URL != srv.URL+"/" {
		t.Errorf("crash event: %+v", ev)
	}
	if ev := s.next("tab.crashed", func(ev event) bool { return ev.State != "" }); ev.State != "reloaded" || ev.URL != srv.URL+"/" {
		t.Fatalf("reload event: %+v", ev)
	}
	states := ledgerStates(e)
	if states["notes-crash"] != "unknown TAB_CRASHED" {
		t.Errorf("ledger: %q", states["notes-crash"])
	}
	if got := e.ok("tabs"); !strings.Contains(got, snap.SurfaceID) || !strings.Contains(got, "[human]") || strings.Contains(got, "[crashed]") {
		t.Errorf("tabs after the reload: %s", got)
	}
	for _, args := range [][]string{{"snapshot"}, {"click", `role=textbox[name="Notes"]`}} {
		r := e.run(append([]string{"--json"}, args...)...)
		if code, _, notExec := errorJSON(t, r); code != "TAB_CRASHED" || !notExec {
			t.Errorf("%v on the crashed tab: %s not_executed=%v", args, code, notExec)
		}
	}
	sent := settledCount(keys)

	e.ok("resume")
	if r := e.run("--json", "click", snap.Refs[len(snap.Refs)-1].Ref); !strings.Contains(r.stdout, "STALE_REF") {
		t.Errorf("a ref from before the crash: %s", r.stdout)
	}
	if got := e.ok("snapshot"); !strings.Contains(got, "Notes") {
		t.Errorf("the reloaded page: %s", got)
	}
	if n := keys.Load(); n != sent {
		t.Errorf("%d keys reached the page after the crash", n-sent)
	}
}

// TestCrashPageFromTheCLI: a person at the CLI may open chrome://crash;
// its renderer dies, and the tab goes through the crash path: handed to a
// person, reloaded at its last web address, refused to agents until
// resumed.
func TestCrashPageFromTheCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, _ := countingPage(t, `<h1>Before</h1>`)
	e.ok("open", srv.URL+"/")
	s := startEvents(t, e, "--kind", "tab.crashed")
	e.run("open", "chrome://crash") // the navigation is aborted as the renderer dies
	if ev := s.next("tab.crashed", func(ev event) bool { return ev.State != "" }); ev.State != "reloaded" || ev.URL != srv.URL+"/" {
		t.Fatalf("the crash page's crash: %+v", ev)
	}
	if code, _, _ := errorJSON(t, e.run("--json", "snapshot")); code != "TAB_CRASHED" {
		t.Errorf("a read after the crash: %s", code)
	}
	e.ok("resume")
	if got := e.ok("snapshot"); !strings.Contains(got, "Before") {
		t.Errorf("the reloaded page: %s", got)
	}
}
