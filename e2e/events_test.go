package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// event is what the tests read of an event.
type event struct {
	Seq         int64  `json:"seq"`
	Kind        string `json:"kind"`
	Session     string `json:"session"`
	Task        string `json:"task"`
	SurfaceID   string `json:"surface_id"`
	OperationID string `json:"operation_id"`
	Op          string `json:"op"`
	State       string `json:"state"`
	Unknown     bool   `json:"unknown"`
	Code        string `json:"code"`
	Epoch       int64  `json:"epoch"`
	URL         string `json:"url"`
	Bytes       int64  `json:"bytes"`
	Total       int64  `json:"total"`
}

// eventStream runs `loupe events --since 0` and hands over its lines:
// the replay makes sure no event is missed while the stream connects.
type eventStream struct {
	t  *testing.T
	ch chan event
}

func startEvents(t *testing.T, e *env, args ...string) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, loupeBin, append([]string{"events", "--since", "0"}, args...)...)
	cmd.Env = e.environ()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &eventStream{t: t, ch: make(chan event, 256)}
	go func() {
		defer close(s.ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("not an event: %q", sc.Text())
				continue
			}
			s.ch <- ev
		}
	}()
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return s
}

// next waits (by the stream's own events, at most 15 s) for an event of
// kind that matches, and returns it; events of other kinds pass by.
func (s *eventStream) next(kind string, match func(event) bool) event {
	s.t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-s.ch:
			if !ok {
				s.t.Fatalf("the event stream ended waiting for %s", kind)
			}
			if ev.Kind == kind && (match == nil || match(ev)) {
				return ev
			}
		case <-timeout:
			s.t.Fatalf("no %s event in 15 s", kind)
		}
	}
}

// TestEventStream: `loupe events` streams, as NDJSON, writes settled,
// take-overs and resumes, approvals asked and answered, tasks ended and a
// browser that died — each as it happens.
func TestEventStream(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, _ := countingPage(t, `<h1>Shop</h1><button onclick="fetch('/hit')">Buy</button>`)
	e.ok("daemon", "start")
	s := startEvents(t, e)
	e.ok("--task", "t1", "--op-id", "open-1", "open", srv.URL+"/")
	ev := s.next("op.settled", func(ev event) bool { return ev.OperationID == "open-1" })
	if ev.State != "executed" || ev.Op != "open" || ev.Task != "t1" || ev.Session != "default" || ev.Seq == 0 || ev.Unknown {
		t.Errorf("the open's event: %+v", ev)
	}
	page := ev.SurfaceID

	var tab struct {
		ID string `json:"id"`
	}
	e.okJSON(&tab, "tab", "new", srv.URL+"/")
	if ev := s.next("tab.opened", nil); ev.SurfaceID != tab.ID {
		t.Errorf("tab opened: %+v, want %s", ev, tab.ID)
	}
	e.ok("tab", "close", tab.ID)
	if ev := s.next("tab.closed", nil); ev.SurfaceID != tab.ID || ev.URL != srv.URL+"/" {
		t.Errorf("tab closed: %+v", ev)
	}
	e.ok("switch", page)

	e.ok("takeover")
	if ev := s.next("tab.taken_over", nil); ev.SurfaceID == "" || ev.Epoch != 1 {
		t.Errorf("take-over: %+v", ev)
	}
	e.ok("resume")
	if ev := s.next("tab.resumed", nil); ev.Epoch != 2 {
		t.Errorf("resume: %+v", ev)
	}

	e.ok("policy", "set", "click", "ask")
	done := make(chan result, 1)
	go func() { done <- e.run("--op-id", "buy-1", "click", `role=button[name="Buy"]`) }()
	asked := s.next("approval.asked", nil)
	if asked.OperationID != "buy-1" || asked.Op != "click" {
		t.Errorf("approval asked: %+v", asked)
	}
	var pending struct {
		Approvals []struct {
			ID string `json:"approval_id"`
		} `json:"approvals"`
	}
	e.okJSON(&pending, "approvals")
	if len(pending.Approvals) != 1 {
		t.Fatalf("approvals: %+v", pending)
	}
	e.ok("deny", pending.Approvals[0].ID)
	if ev := s.next("approval.answered", nil); ev.State != "denied" || ev.OperationID != "buy-1" {
		t.Errorf("approval answered: %+v", ev)
	}
	<-done

	e.ok("task", "end", "t1")
	s.next("task.ended", func(ev event) bool { return ev.Task == "t1" })

	for _, pid := range e.browserProcesses() {
		_ = kill(pid)
	}
	if ev := s.next("browser.gone", nil); ev.Session != "default" {
		t.Errorf("browser gone: %+v", ev)
	}
	_ = page

	// A reader may start again from a seq it saw and miss nothing: the
	// approval asked is replayed, and --count ends the stream.
	out := e.ok("events", "--since", strconv.FormatInt(asked.Seq-1, 10), "--kind", "approval.asked", "--count", "1")
	var again event
	if err := json.Unmarshal([]byte(out), &again); err != nil || again.Seq != asked.Seq || again.OperationID != "buy-1" {
		t.Errorf("events --since: %q (%v)", out, err)
	}
	if r := e.run("events", "--kind", "nope"); r.code != 2 {
		t.Errorf("events --kind nope: exit %d %s", r.code, r.stderr)
	}
}

// TestDownloadPolicy: downloads a page starts are decided by the approval
// policy's download rules: under ask one is held out of the session's
// files until a person approves it (then it is filed) or denies it; under
// deny it is cancelled and nothing is kept. The event stream tells each.
func TestDownloadPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("download.html"))
	e.ok("policy", "set", "download", "ask")
	s := startEvents(t, e, "--kind", "download.started,download.finished,approval.asked")
	files := filepath.Join(e.home, "sessions", "default", "files", "downloads")
	link := `role=link[name="Download report"]`

	e.ok("click", link)
	asked := s.next("approval.asked", nil)
	if asked.Op != "download" || !strings.HasPrefix(asked.URL, "http://127.0.0.1") {
		t.Errorf("the download's approval: %+v", asked)
	}
	if list, _ := os.ReadDir(files); len(list) != 0 {
		t.Fatalf("a download waiting for approval is in the session's files: %v", list)
	}
	var pending struct {
		Approvals []struct {
			ID string `json:"approval_id"`
			Op string `json:"op"`
		} `json:"approvals"`
	}
	e.okJSON(&pending, "approvals")
	if len(pending.Approvals) != 1 || pending.Approvals[0].Op != "download" {
		t.Fatalf("approvals: %+v", pending)
	}
	e.ok("approve", pending.Approvals[0].ID)
	var got struct {
		Finished struct {
			State string `json:"state"`
			Path  string `json:"path"`
		} `json:"finished"`
	}
	e.okJSON(&got, "downloads", "--wait")
	if got.Finished.State != "completed" || got.Finished.Path != filepath.Join(files, "report.txt") {
		t.Fatalf("the approved download: %+v", got)
	}
	if data, err := os.ReadFile(got.Finished.Path); err != nil || string(data) != "quarterly report\n" {
		t.Fatalf("the approved file: %q %v", data, err)
	}
	if ev := s.next("download.finished", func(ev event) bool { return ev.State == "completed" }); !strings.HasSuffix(ev.URL, "report.txt") {
		t.Errorf("download finished: %+v", ev)
	}

	// Denied by a person.
	e.ok("click", link)
	s.next("approval.asked", nil)
	e.okJSON(&pending, "approvals")
	e.ok("deny", pending.Approvals[0].ID)
	got.Finished.Path = ""
	e.okJSON(&got, "downloads", "--wait")
	if got.Finished.State != "denied" || got.Finished.Path != "" {
		t.Fatalf("the denied download: %+v", got)
	}

	// Denied by the policy.
	e.ok("policy", "set", "download", "deny")
	e.ok("click", link)
	e.okJSON(&got, "downloads", "--wait")
	if got.Finished.State != "denied" {
		t.Fatalf("a download under deny: %+v", got)
	}
	if list, _ := os.ReadDir(files); len(list) != 1 {
		t.Errorf("%d files in the downloads, want the approved one", len(list))
	}
}
