package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/chromeprofile"
	"github.com/loupe-dev/loupe/internal/chromium"
)

// personsChrome starts a Chromium of a person's own, with its own profile
// and remote debugging on, at page (titled title), and returns once that
// page is loaded; it is stopped after the test.
func personsChrome(t *testing.T, page, title string) (profile string, endpoint string) {
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), false)
	if err != nil {
		t.Fatal(err)
	}
	profile = t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--remote-debugging-port=0", "--user-data-dir="+profile,
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", page)
	// Its temporary files too (a killed Chromium leaves its singleton
	// socket's directory in TMPDIR), removed with the profile.
	cmd.Env = append(os.Environ(), "TMPDIR="+profile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	// Chromium writes DevToolsActivePort once it listens; nothing tells
	// us when, so its profile is looked at until then (bounded).
	deadline := time.Now().Add(20 * time.Second)
	for {
		if endpoint, err = chromeprofile.ActiveEndpoint(profile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the person's Chromium never wrote DevToolsActivePort")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// It listens before its first page has committed (a loaded machine
	// left the tab on its initial about:blank, its address already the
	// page's, when the test read it): the person's page is there once
	// the tab carries the page's title, asked of the browser until then
	// (bounded; the browser tells no one outside).
	for !slices.ContainsFunc(pages(endpoint), func(p target) bool { return p.Title == title }) {
		if time.Now().After(deadline) {
			t.Fatalf("the person's page (title %q) never loaded", title)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return profile, endpoint
}

// target is a page of a browser's target list.
type target struct{ Type, Title, URL string }

// pages are the pages the browser at endpoint (its DevTools WebSocket)
// lists over HTTP; none when it does not answer.
func pages(endpoint string) []target {
	resp, err := http.Get(strings.Replace(strings.SplitN(endpoint, "/devtools/", 2)[0], "ws://", "http://", 1) + "/json/list")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var all []target
	_ = json.NewDecoder(resp.Body).Decode(&all)
	return slices.DeleteFunc(all, func(tg target) bool { return tg.Type != "page" })
}

// TestAttachPersonsChrome: attach --chrome finds the person's running
// browser by its profile, lists their tab, and reads or acts in it only
// with their approval — denied, nothing happens; approved, it does — while
// a tab loupe opened needs none; close leaves their browser and tab; and
// with remote debugging off loupe says how to turn it on.
func TestAttachPersonsChrome(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>My bank</title><p>MK-PERSONS-PAGE</p><button>Pay</button>`)
	}))
	t.Cleanup(srv.Close)
	profile, endpoint := personsChrome(t, srv.URL+"/mine", "My bank")
	e := newEnv(t)

	if r := e.run("attach", "--chrome", "--profile", t.TempDir()); r.code != 1 || !strings.Contains(r.stderr, "chrome://inspect/#remote-debugging") {
		t.Fatalf("a profile with debugging off: exit %d %s", r.code, r.stderr)
	}
	if out := e.ok("attach", "--chrome", "--profile", profile); !strings.Contains(out, "attached") && !strings.Contains(out, "Chrome") {
		t.Fatalf("attach --chrome: %s", out)
	}
	var tabs struct{ Tabs []struct{ ID, URL string } }
	e.okJSON(&tabs, "tabs")
	if len(tabs.Tabs) != 1 || !strings.HasSuffix(tabs.Tabs[0].URL, "/mine") {
		t.Fatalf("the person's tabs: %+v", tabs.Tabs)
	}
	mine := tabs.Tabs[0].ID

	// A read in the person's tab waits for them: denied, nothing read.
	answer := func(approve bool) result {
		done := make(chan result, 1)
		go func() { done <- e.run("--task", "agent", "snapshot") }()
		var pending struct {
			Approvals []struct {
				ID   string `json:"approval_id"`
				Page string `json:"page"`
				Rule string `json:"rule"`
			} `json:"approvals"`
		}
		eventually(t, "the read waiting for the person", func() bool {
			e.okJSON(&pending, "approvals")
			return len(pending.Approvals) == 1
		})
		if a := pending.Approvals[0]; a.Page != mine || !strings.Contains(a.Rule, "did not open") {
			t.Fatalf("the approval: %+v", a)
		}
		if approve {
			e.ok("approve", pending.Approvals[0].ID)
		} else {
			e.ok("deny", pending.Approvals[0].ID)
		}
		return <-done
	}
	if r := answer(false); r.code == 0 || !strings.Contains(r.stderr, "DENIED") || strings.Contains(r.stdout, "MK-PERSONS-PAGE") {
		t.Fatalf("a denied read: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := answer(true); r.code != 0 || !strings.Contains(r.stdout, "MK-PERSONS-PAGE") {
		t.Fatalf("an approved read: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A tab loupe opens is the agent's: no approval.
	e.ok("--task", "agent", "tab", "new", srv.URL+"/agents")
	if out := e.ok("--task", "agent", "snapshot"); !strings.Contains(out, "MK-PERSONS-PAGE") {
		t.Fatalf("the agent's own tab: %s", out)
	}

	// close detaches: the person's browser and tab are still there.
	e.ok("close")
	after := pages(endpoint)
	if !slices.ContainsFunc(after, func(p target) bool { return strings.HasSuffix(p.URL, "/mine") }) {
		t.Fatalf("close closed the person's tab: %+v", after)
	}
}
