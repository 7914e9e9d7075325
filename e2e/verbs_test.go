package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestMoreVerbs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("form.html"))
	snap := e.ok("snapshot")

	if got := e.ok("html", refOf(t, snap, "button", "Go")); !strings.HasPrefix(got, `<button type="button" onclick=`) {
		t.Errorf("html: %q", got)
	}
	if got := e.ok("text"); !strings.Contains(got, "Form fixture") || !strings.Contains(got, "Far away") {
		t.Errorf("page text: %q", got)
	}
	if got := e.ok("text", refOf(t, snap, "button", "Twice")); got != "Twice\n" {
		t.Errorf("text of a button: %q", got)
	}
	e.ok("dblclick", refOf(t, snap, "button", "Twice"))
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"dblclicked\"\n" {
		t.Errorf("after dblclick: %q", got)
	}
	agree := refOf(t, snap, "checkbox", "Agree")
	e.ok("check", agree)
	e.ok("uncheck", agree)
	if got := e.ok("state", agree); !strings.Contains(got, "unchecked") {
		t.Errorf("state after uncheck: %q", got)
	}
	if got := e.ok("uncheck", agree); !strings.HasPrefix(got, "already unchecked") {
		t.Errorf("unchecking an unchecked box: %q", got)
	}

	// scroll TARGET brings a far element into view without clicking it.
	far := refOf(t, snap, "button", "Far away")
	if got := e.ok("state", far); strings.Contains(got, "in-viewport") {
		t.Fatalf("far button starts in the viewport: %q", got)
	}
	e.ok("scroll", far)
	if got := e.ok("state", far); !strings.Contains(got, "in-viewport") {
		t.Errorf("after scroll TARGET: %q", got)
	}

	// An element hidden after the snapshot is not clicked.
	e.ok("eval", "document.getElementById('far').style.display = 'none'")
	r := e.run("click", far)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "NOT_ACTIONABLE: "+far+" is not visible") {
		t.Errorf("click on a hidden element: %d %q", r.code, r.stderr)
	}
	// wait --target follows it becoming visible again.
	e.ok("eval", "setTimeout(() => document.getElementById('far').style.display = '', 100); 0")
	if got := e.ok("wait", "--target", far, "--timeout", "3s"); !strings.Contains(got, "ok element "+far) {
		t.Errorf("wait --target: %q", got)
	}
	// wait --text-gone follows text going away; --time just waits.
	e.ok("eval", "setTimeout(() => document.getElementById('status').textContent = 'MK-AFTER', 100); document.getElementById('status').textContent = 'MK-SPINNER'")
	if got := e.ok("wait", "--text-gone", "MK-SPINNER", "--timeout", "5s"); !strings.Contains(got, `ok text "MK-SPINNER" gone`) {
		t.Errorf("wait --text-gone: %q", got)
	}
	if got := e.ok("wait", "--time", "150ms"); !strings.Contains(got, "ok time 150ms") {
		t.Errorf("wait --time: %q", got)
	}
	if r := e.run("wait", "--time", "150ms", "--text", "x"); r.code != 2 {
		t.Errorf("two conditions: exit %d %s", r.code, r.stderr)
	}
	// Uncaught exceptions and unhandled rejections are in the console.
	e.ok("eval", "setTimeout(() => { throw new Error('MK-UNCAUGHT') }); Promise.reject(new Error('MK-REJECTED')); 0")
	eventually(t, "the page's exceptions in the console", func() bool {
		got := e.ok("console")
		return strings.Contains(got, "exception: Uncaught Error: MK-UNCAUGHT") && strings.Contains(got, "exception: Uncaught (in promise) Error: MK-REJECTED")
	})

	// open --new-tab opens beside the current tab and becomes active.
	e.ok("open", "--new-tab", srv.Page("dupes.html"))
	tabs := e.ok("tabs")
	if !strings.Contains(tabs, `* s2 "dupes fixture"`) || !strings.Contains(tabs, `  s1 "form fixture"`) {
		t.Errorf("tabs after open --new-tab:\n%s", tabs)
	}
	// Refs are bound to their surface: the form's refs do not work here.
	if r := e.run("click", far); r.code != 1 {
		t.Errorf("a ref from another tab was accepted: %q", r.stdout)
	}
	// Closing your own current tab takes you back to the one you were on.
	if got := e.ok("tab", "close"); !strings.Contains(got, "closed s2; your current tab is now s1") {
		t.Errorf("tab close of the current tab: %q", got)
	}
	if got := e.ok("snapshot"); !strings.Contains(got, "form fixture") {
		t.Errorf("after closing the current tab:\n%s", got)
	}
}

// TestAttach attaches a session to a browser loupe did not start, drives it,
// and leaves it running on close.
func TestAttach(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	other, endpoint := externalChromium(t)
	httpEndpoint := "http://" + strings.SplitN(strings.TrimPrefix(endpoint, "ws://"), "/", 2)[0]
	// An Electron main-process endpoint that does not answer: the attach
	// fails clearly and changes nothing (the next attach is the first).
	if r := e.run("attach", "--cdp", httpEndpoint, "--electron-main", "http://127.0.0.1:1"); r.code != 1 || !strings.HasPrefix(r.stderr, "TRANSPORT_UNSUPPORTED: ") {
		t.Fatalf("attach with an unreachable --electron-main: %d %q", r.code, r.stderr)
	}
	if got := e.ok("attach", "--cdp", httpEndpoint); !strings.Contains(got, "attached to") {
		t.Fatalf("attach: %q", got)
	}
	var doc struct {
		Transport string          `json:"transport"`
		Endpoint  string          `json:"endpoint"`
		Binary    string          `json:"binary"`
		Features  map[string]bool `json:"features"`
	}
	e.okJSON(&doc, "doctor")
	if doc.Transport != "websocket" || !strings.HasPrefix(doc.Endpoint, "ws://") || doc.Binary != "" || doc.Features["electronClassification"] {
		t.Errorf("doctor on an attached browser: %+v", doc)
	}
	e.ok("open", srv.Page("dupes.html"))
	snap := e.ok("snapshot")
	// The visible Save after the editor (an aria-hidden one is shown above,
	// marked).
	e.ok("click", refAfter(t, snap, `textbox "Message"`, "button", "Save"))
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"clicked-visible-save\"\n" {
		t.Errorf("status: %q", got)
	}
	r := e.run("attach", "--cdp", httpEndpoint)
	if r.code != 1 || !strings.Contains(r.stderr, "already has a browser") {
		t.Errorf("second attach to the same session: %d %q", r.code, r.stderr)
	}
	e.ok("close")
	// The attached browser is still running and still answers.
	if other.ProcessState != nil {
		t.Fatal("closing an attached session stopped the browser")
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the attached browser is gone after close: %v", err)
	}
	e.ok("attach", "--cdp", endpoint) // the ws:// form works too
	if got := e.ok("tabs"); !strings.Contains(got, "dupes fixture") {
		t.Errorf("tabs of the re-attached browser: %q", got)
	}
}

// externalChromium starts a Chromium that loupe did not launch, with a
// DevTools port, and returns it with its websocket endpoint. The test's
// cleanup kills its whole process tree.
func externalChromium(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), false)
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: the browser's helpers may still write to the profile
	// for a moment after it is killed, which fails TempDir's cleanup.
	profile, err := os.MkdirTemp("", "lp-attach-")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless", "--no-sandbox", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--remote-debugging-port=0", "--user-data-dir=" + profile, "about:blank"}
	other := exec.Command(bin, args...)
	// Its temporary files too (a killed Chromium leaves its singleton
	// socket's directory in TMPDIR), removed with the profile.
	other.Env = append(os.Environ(), "TMPDIR="+profile)
	stderr, err := other.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-other.Process.Pid, syscall.SIGKILL) // the whole browser tree
		other.Wait()
		os.RemoveAll(profile)
	})
	// Chromium announces its endpoint on stderr once it listens.
	endpoint := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
			endpoint = strings.TrimSpace(after)
			break
		}
	}
	if endpoint == "" {
		t.Fatal("no DevTools endpoint announced")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return other, endpoint
}
