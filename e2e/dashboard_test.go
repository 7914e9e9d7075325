package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// agentSite is the agent's site, on 127.0.0.2: /buy has a Buy button
// whose clicks the server counts; /notes is a page-sized text area whose
// value the page reports to the server as it changes (so the test sees
// what a person typed without reading a tab the person holds).
type agentSite struct {
	*httptest.Server
	mu     sync.Mutex
	bought int
	notes  string
	noteN  int // the number of the report notes came from
	hits   map[string]int
}

func (a *agentSite) loads(path string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hits[path]
}

func serveAgentSite(t *testing.T) *agentSite {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &agentSite{hits: map[string]int{}}
	a.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.hits[r.URL.Path]++
		switch r.URL.Path {
		case "/buy":
			fmt.Fprint(w, `<!doctype html><title>Shop</title><button onclick="fetch('/bought', {method: 'POST'})">Buy</button>`)
		case "/bought":
			a.bought++
		case "/notes":
			fmt.Fprint(w, `<!doctype html><title>Notes</title><textarea aria-label="Notes" style="position:fixed;inset:0;width:100%;height:100%;margin:0"
				oninput="fetch('/note?n=' + (++this.dataset.n) + '&v=' + encodeURIComponent(this.value))" data-n="0"></textarea>
				<script>console.error('MK-CONSOLE-ERROR'); fetch('/missing.json');</script>`)
		case "/missing.json":
			http.NotFound(w, r)
		case "/note":
			// The page's reports travel on parallel connections and may
			// arrive out of order: the highest number is the latest value.
			if n, _ := strconv.Atoi(r.URL.Query().Get("n")); n > a.noteN {
				a.noteN, a.notes = n, r.URL.Query().Get("v")
			}
		}
	}))
	a.Listener = ln
	a.Start()
	t.Cleanup(a.Close)
	return a
}

func (a *agentSite) state() (int, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bought, a.notes
}

// TestDashboardDrivenByLoupe: a person at the dashboard — here loupe
// itself, in a session of its own, acting on the dashboard's snapshot —
// approves a write an agent in another session waits on, takes the
// agent's tab over, types into it through the live view (the page gets
// the keys), hands it back, and finds an unknown outcome listed, which
// they acknowledge.
//
// Not parallel: two browsers (the person's and the agent's) driven through
// the live view for some forty steps; beside the package's parallel tests
// its 15 s waits ran out twice under make test's load.
func TestDashboardDrivenByLoupe(t *testing.T) {
	e := newEnv(t)
	site := serveAgentSite(t)
	agent := func(args ...string) string {
		return e.ok(append([]string{"--session", "work", "--task", "agent"}, args...)...)
	}
	person := func(args ...string) string { return e.ok(append([]string{"--session", "dash"}, args...)...) }
	// The page shows news after an event and a read of the state: under
	// CI's load that can take longer than wait's default 3 s.
	personWait := func(args ...string) { person(append(append([]string{"wait"}, args...), "--timeout", "15s")...) }

	agent("open", site.URL+"/buy")
	e.ok("policy", "set", "click", "ask", "--origin", "http://127.0.0.2:*")
	url := strings.SplitN(e.ok("dashboard"), "\n", 2)[0]
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("dashboard address %q", url)
	}
	if again := strings.SplitN(e.ok("dashboard"), "\n", 2)[0]; again != url {
		t.Fatalf("a second loupe dashboard started another: %q, then %q", url, again)
	}
	person("open", url)

	// 1. The agent's click waits for approval; the person approves it on
	// the dashboard. The card, and then its answer, move none of the
	// tabs' buttons below them.
	// topOf is where an element of the dashboard is, in page pixels.
	topOf := func(id string) string {
		return strings.TrimSpace(person("eval", fmt.Sprintf(`Math.round(document.getElementById(%q).getBoundingClientRect().top + scrollY)`, id)))
	}
	tabsBefore := topOf("tabs")
	done := make(chan result, 1)
	go func() {
		done <- e.run("--session", "work", "--task", "agent", "--op-id", "buy-1", "click", `role=button[name="Buy"]`)
	}()
	var pending struct {
		Approvals []struct {
			ID string `json:"approval_id"`
		} `json:"approvals"`
	}
	eventually(t, "the click waiting for approval", func() bool {
		e.okJSON(&pending, "approvals")
		return len(pending.Approvals) == 1
	})
	approve := fmt.Sprintf(`role=button[name="Approve %s"]`, pending.Approvals[0].ID)
	personWait("--target", approve)
	snap := person("snapshot")
	for _, want := range []string{"click role=button", "task agent", "by cli", `element role=button[name=\"Buy\"]`, `sends {\"ref\":`} {
		if !strings.Contains(snap, want) {
			t.Fatalf("the approval card does not say %q (what, which element, who asks and what it sends):\n%s", want, snap)
		}
	}
	if at := topOf("tabs"); at != tabsBefore {
		t.Errorf("the approval card moved the tabs from y %s to %s", tabsBefore, at)
	}
	person("click", approve)
	if r := <-done; r.code != 0 {
		t.Fatalf("the approved click: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	eventually(t, "the approved click reaching the shop", func() bool { n, _ := site.state(); return n == 1 })
	personWait("--text", "approved")
	if at := topOf("tabs"); at != tabsBefore {
		t.Errorf("the answered approval moved the tabs from y %s to %s", tabsBefore, at)
	}

	// 2. The person takes the agent's tab over and types into it through
	// the live view.
	agent("open", site.URL+"/notes")
	var tabs struct{ Tabs []struct{ ID string } }
	e.okJSON(&tabs, "--session", "work", "tabs")
	tab := tabs.Tabs[0].ID
	watch := fmt.Sprintf(`role=button[name="Watch %s of work: Notes"]`, tab)
	personWait("--target", watch)
	person("click", watch)
	// The tab's console errors and failed requests.
	personWait("--text", "MK-CONSOLE-ERROR")
	personWait("--text", "404")
	person("click", fmt.Sprintf(`role=button[name="Take over %s"]`, tab))
	personWait("--target", fmt.Sprintf(`role=button[name="Resume %s"]`, tab))
	if r := e.run("--session", "work", "snapshot"); r.code == 0 || !strings.Contains(r.stderr, "HUMAN_CONTROL") {
		t.Fatalf("the agent read a tab the person holds: exit %d %s", r.code, r.stderr)
	}
	personWait("--target", `role=image[name="Live view of the tab"]`)
	// The person's own reload of a tab they hold leaves it theirs.
	loads := site.loads("/notes")
	person("click", `role=button[name="Reload"]`)
	eventually(t, "the person's reload", func() bool { return site.loads("/notes") == loads+1 })
	personWait("--text", "reload executed") // it has loaded: the page takes input again
	personWait("--target", fmt.Sprintf(`role=button[name="Resume %s"]`, tab))
	personWait("--target", `role=image[name="Live view of the tab"]`)
	person("click", `role=image[name="Live view of the tab"]`)
	person("type", "MK-BY-HAND")
	person("press", "Enter")
	// Each key goes from the dashboard page to the daemon and on to the
	// agent's page: under a loaded gate that has taken over 15 s.
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, v := site.state()
		if v == "MK-BY-HAND\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the keys typed through the live view: the page has %q", v)
		}
	}
	person("click", fmt.Sprintf(`role=button[name="Resume %s"]`, tab))
	personWait("--target", fmt.Sprintf(`role=button[name="Take over %s"]`, tab))
	if got := agent("eval", `document.querySelector('textarea').value`); !strings.Contains(got, `MK-BY-HAND\n`) {
		t.Fatalf("after the resume the agent reads %s", got)
	}

	// The diagnostics view.
	person("click", `role=button[name="Diagnostics"]`)
	personWait("--text", "diagnostics of "+tab)

	// Zoom: 150% draws the picture at one and a half times its pixels;
	// Fit to the panel again.
	person("select", `role=combobox[name="Zoom"]`, "150%")
	zoomed := person("eval", `(() => { const i = document.getElementById('frame'); return [i.naturalWidth, parseInt(i.style.width)] })()`)
	var sizes []int
	if err := json.Unmarshal([]byte(zoomed), &sizes); err != nil || len(sizes) != 2 || sizes[0] == 0 || sizes[1] != int(float64(sizes[0])*1.5+0.5) {
		t.Fatalf("the live picture at 150%%: natural and drawn widths %s", zoomed)
	}
	person("select", `role=combobox[name="Zoom"]`, "Fit")
	if got := person("eval", `document.getElementById('frame').style.width`); got != "\"100%\"\n" {
		t.Fatalf("the live picture fitted: width %s", got)
	}

	// Pick mode: a click on the live picture names the element drawn
	// there (the notes page's textarea fills it) instead of reaching it.
	person("click", `role=button[name="Pick"]`)
	person("click", `role=image[name="Live view of the tab"]`)
	personWait("--text", `textbox "Notes" [ref=`)
	personWait("--text", `locator: role=textbox[name="Notes"]`)

	// Network: the agent's route shows on the dashboard, a capture of a
	// reload is saved as a HAR file in the session's files, and the person
	// clears the route.
	agent("route", "**/missing.json", "--body", `{"ok":true}`)
	person("click", `role=button[name="Routes"]`)
	personWait("--text", "**/missing.json fulfill 200")
	person("click", `role=button[name="Capture traffic"]`)
	personWait("--text", "Capturing the traffic of "+tab)
	agent("reload")
	person("click", `role=button[name="Save HAR"]`)
	personWait("--text", "HAR of "+tab)
	hars, _ := filepath.Glob(filepath.Join(e.home, "sessions", "work", "files", "traffic-"+tab+"-*.har"))
	if len(hars) != 1 {
		t.Fatalf("the dashboard's HAR file: %v", hars)
	}
	if har, err := os.ReadFile(hars[0]); err != nil || !strings.Contains(string(har), "missing.json") || !strings.Contains(string(har), `"version": "1.2"`) && !strings.Contains(string(har), `"version":"1.2"`) {
		t.Fatalf("the dashboard's HAR: %v\n%.400s", err, har)
	}
	// What the dashboard shows by itself moves no button: the operations
	// list grows as the agent works (a gate once saw the person's click
	// land on the line above the button, moved by the click's own
	// operation), and the controls below it stay where they were.
	before := topOf("clear-routes")
	for i := range 3 {
		e.ok("--session", "work", "--task", "agent", "--op-id", fmt.Sprintf("moves-%d", i), "reload")
	}
	personWait("--text", "moves-2")
	if after := topOf("clear-routes"); after != before {
		t.Fatalf("three operations moved the Clear routes button from y %s to %s", before, after)
	}
	person("click", `role=button[name="Clear routes"]`)
	personWait("--text", "No routes in "+tab)
	person("click", `role=button[name="Save state"]`)
	personWait("--text", "Saved ")
	if states, _ := filepath.Glob(filepath.Join(e.home, "sessions", "work", "files", "state-"+tab+"-*.json")); len(states) != 1 {
		t.Fatalf("the dashboard's storage state file: %v", states)
	}
	// A file chooser the agent's click opened is answered by the person
	// with a file of theirs, picked in the dashboard.
	agent("open", `data:text/html,<title>Attach</title><button onclick="document.getElementById('f').click()">Attach</button><input type="file" id="f" hidden onchange="document.title = 'got ' + this.files[0].name">`)
	agent("click", `role=button[name="Attach"]`)
	receipt := filepath.Join(t.TempDir(), "receipt.txt")
	os.WriteFile(receipt, []byte("paid"), 0o600)
	person("upload", "css=#chooser-files", receipt)
	personWait("--text", "Answered the file chooser of "+tab+" with receipt.txt")
	if got := agent("eval", "document.title"); !strings.Contains(got, "got receipt.txt") {
		t.Fatalf("the page after the person's answer: %s", got)
	}
	agent("open", site.URL+"/notes")

	// The broker's hosts.
	e.ok("broker", "register", "--host", "ci-box")
	person("click", `role=button[name="Show remote hosts"]`)
	personWait("--text", "ci-box generation 1, never used")

	// A responsive preset lays the tab out at its size; Window resets it.
	// (The phone is a mobile device: a page without a viewport meta tag
	// is laid out 980 px wide and shown zoomed out on its 390 px screen.)
	person("select", `role=combobox[name="Viewport"]`, "Phone 390×844")
	eventually(t, "the phone preset", func() bool { return agent("eval", "[screen.width, devicePixelRatio]") == "[390,3]\n" })
	person("select", `role=combobox[name="Viewport"]`, "Window")
	eventually(t, "the window's own size again", func() bool { return agent("eval", "[screen.width, devicePixelRatio]") != "[390,3]\n" })

	// A recording started and stopped at the dashboard leaves a file.
	person("click", `role=button[name="Record"]`)
	personWait("--text", "Recording "+tab+":")
	person("click", `role=button[name="Stop recording"]`)
	personWait("--text", "ended (stopped)")
	if snap := person("snapshot"); !strings.Contains(snap, ".webm") {
		t.Fatalf("the dashboard's recording left no file:\n%s", snap)
	}

	// 3. A write cut short by a take-over has an unknown outcome: the
	// dashboard lists it, and the person acknowledges it.
	typing := make(chan result, 1)
	go func() {
		typing <- e.run("--session", "work", "--task", "agent", "--op-id", "notes-long", "type", `role=textbox[name="Notes"]`, strings.Repeat("x", 4000))
	}()
	eventually(t, "the long write under way", func() bool { _, v := site.state(); return len(v) > 20 })
	e.ok("--session", "work", "takeover", tab)
	if r := <-typing; !strings.Contains(r.stdout+r.stderr, "TAKEN_OVER") {
		t.Fatalf("the write cut short: %s%s", r.stdout, r.stderr)
	}
	ack := `role=button[name="Acknowledge notes-long"]`
	if r := e.run("--session", "dash", "wait", "--target", ack, "--timeout", "15s"); r.code != 0 {
		t.Fatalf("no way to acknowledge the unknown outcome: %s\n%s\nledger: %s", r.stderr, person("snapshot"), e.ok("ops", "show", "notes-long"))
	}
	if snap := person("snapshot"); !strings.Contains(snap, "unknown: check the page") {
		t.Fatalf("the unknown outcome is not marked:\n%s", snap)
	}
	person("click", ack)
	var op struct {
		State        string `json:"state"`
		Acknowledged string `json:"acknowledged"`
	}
	eventually(t, "the acknowledgement in the ledger", func() bool {
		e.okJSON(&op, "ops", "show", "notes-long")
		return op.Acknowledged != ""
	})
	if op.State != "unknown" {
		t.Fatalf("acknowledging changed the state to %s", op.State)
	}
	// The person's own calls are in the ledger as theirs.
	var list struct {
		Operations []struct{ Op, Task, Client string } `json:"operations"`
	}
	e.okJSON(&list, "ops", "--session", "work")
	var mine int
	for _, o := range list.Operations {
		if o.Task == "person" && o.Client == "dashboard" {
			mine++
		}
	}
	if mine == 0 {
		b, _ := json.Marshal(list)
		t.Fatalf("no operation of the person's in the ledger: %s", b)
	}

	// 4. The settings page turns browser control off and on again.
	person("click", `role=button[name="Settings"]`)
	person("click", `role=button[name="Turn off browser control"]`)
	personWait("--target", `role=button[name="Turn on browser control"]`)
	if out := e.ok("settings"); !strings.Contains(out, "controlEnabled false") {
		t.Fatalf("the dashboard's setting did not take: %s", out)
	}
	if r := e.run("--session", "work", "press", "Shift"); r.code == 0 || !strings.Contains(r.stderr, "DENIED") {
		t.Fatalf("an agent write with control off: exit %d %s", r.code, r.stderr)
	}
	// (Here the person is loupe, whose own clicks control off refuses
	// too: the CLI turns it on, and the open page shows it at once.)
	e.ok("settings", "set", "controlEnabled", "true")
	personWait("--target", `role=button[name="Turn off browser control"]`)
	person("click", `role=button[name="Close settings"]`)

	// 5. A tab of the person's own, a page that does not load, a retry
	// once it does, and the tab closed.
	person("click", `role=button[name="New tab in work"]`)
	var after struct{ Tabs []struct{ ID, URL string } }
	eventually(t, "the person's new tab", func() bool {
		e.okJSON(&after, "--session", "work", "tabs")
		return len(after.Tabs) == 2
	})
	mineTab := after.Tabs[1].ID
	personWait("--text", mineTab+" · ") // the dashboard shows the new tab (its status line)
	personWait("--target", `role=button[name="Close tab"]`)
	down := httptest.NewServer(http.NotFoundHandler())
	deadURL := down.URL + "/gone"
	down.Close() // nothing listens there now
	// The error line, and a status line grown by the long address, move
	// neither the live view nor its tools (they did by a line or more).
	screenBefore, toolsBefore := topOf("screen"), topOf("zoom")
	person("fill", `role=textbox[name="Address"]`, deadURL+"?"+strings.Repeat("long-address-", 40))
	person("press", "Enter")
	if r := e.run("--session", "dash", "wait", "--text", "This page did not load", "--timeout", "15s"); r.code != 0 {
		t.Fatalf("no load error shown: %s\n%s\n%s", r.stderr, person("snapshot"), e.ok("--session", "work", "tabs"))
	}
	if screen, tools := topOf("screen"), topOf("zoom"); screen != screenBefore || tools != toolsBefore {
		t.Errorf("the load error moved the live view from y %s to %s and its tools from %s to %s", screenBefore, screen, toolsBefore, tools)
	}
	person("click", `role=button[name="Retry"]`)
	personWait("--text", "This page did not load")
	// The error was on the page before the retry too, so the wait above
	// does not prove the retry's answer has been drawn: a click on Close
	// tab while the panel is drawn again can land on the button being
	// replaced, as a person's can. Like a person, click again if the tab
	// is still there (at most three clicks).
	closed := func() bool {
		e.okJSON(&after, "--session", "work", "tabs")
		return len(after.Tabs) == 1 && after.Tabs[0].ID != mineTab
	}
	for try := 1; ; try++ {
		person("click", `role=button[name="Close tab"]`)
		deadline := time.Now().Add(5 * time.Second)
		for !closed() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond) // a bounded poll of the tab list
		}
		if closed() {
			break
		}
		if try == 3 {
			t.Fatalf("three clicks on Close tab, and the person's tab is still open: %+v\n%s", after.Tabs, person("snapshot"))
		}
		t.Logf("click %d on Close tab: the tab is still open; clicking again", try)
	}
}
