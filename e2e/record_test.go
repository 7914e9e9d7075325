package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

var recordingPath = regexp.MustCompile(`(?m)^(/\S+\.webm) \(\d+ bytes\)$`)

// TestRecordFromCLIAndMCP: a recording started from the CLI ends at its
// limit by itself and leaves a WebM in the session's files; one started
// from MCP is stopped there; one cut by a take-over says so. (The
// engine's tests check the files decode and their length.)
func TestRecordFromCLIAndMCP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("canvas.html"))
	if out := e.ok("record", "start", "--max", "1s"); !strings.Contains(out, "recording s") {
		t.Fatalf("record start: %s", out)
	}
	var out string
	eventually(t, "the recording ending at its limit", func() bool {
		out = e.ok("record", "status")
		return strings.Contains(out, "ended (limit: 1s)")
	})
	m := recordingPath.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no file after the limit: %s", out)
	}
	if fi, err := os.Stat(m[1]); err != nil || fi.Size() == 0 || !strings.HasPrefix(m[1], e.home) {
		t.Fatalf("the recording's file %s: %v %v", m[1], fi, err)
	}
	if r := e.run("record", "start", "--max", "91s"); r.code != 2 {
		t.Errorf("a recording longer than 90 s: exit %d %s", r.code, r.stderr)
	}

	mc := startMCP(t, e, "--daemon")
	mc.ok("browser_record", map[string]any{"action": "start"})
	if r := mc.call("browser_record", map[string]any{"action": "start"}); !r.isErr || !strings.Contains(r.text, "being recorded already") {
		t.Errorf("a second recording of the tab: %s", r.text)
	}
	// A recording keeps a file only when the tab drew a picture: stopped
	// at once on a loaded machine it may have none yet (bounded wait).
	eventually(t, "the recording's first picture", func() bool {
		return !strings.Contains(mc.ok("browser_record", map[string]any{"action": "status"}), ", 0 frames,")
	})
	if text := mc.ok("browser_record", map[string]any{"action": "stop"}); !strings.Contains(text, "ended (stopped)") || !strings.Contains(text, ".webm") {
		t.Fatalf("browser_record stop:\n%s", text)
	}

	e.ok("record", "start")
	e.ok("takeover")
	e.ok("resume")
	eventually(t, "the recording cut by the take-over", func() bool {
		return strings.Contains(e.ok("record", "status"), "ended (taken over)")
	})
}

// TestFileChooser: a click that opens a file chooser is reported in the
// write's report (file_chooser: pending) and as an event, and an upload
// without a target answers it — from MCP and from the CLI.
func TestFileChooser(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, _ := countingPage(t, `<button onclick="document.getElementById('f').click()">Attach</button>
		<input type="file" id="f" hidden onchange="document.title = 'got ' + this.files[0].name">`)
	e.ok("open", srv.URL+"/")
	m := startMCP(t, e, "--daemon")
	text := m.ok("browser_click", map[string]any{"ref": `role=button[name="Attach"]`})
	if !strings.Contains(text, "file_chooser: pending") {
		t.Fatalf("the click's report:\n%s", text)
	}
	files := filepath.Join(e.home, "sessions", "default", "files")
	os.MkdirAll(files, 0o700)
	os.WriteFile(filepath.Join(files, "minutes.txt"), []byte("minutes"), 0o600)
	m.ok("browser_upload", map[string]any{"files": []string{"minutes.txt"}})
	if got := e.ok("eval", "document.title"); !strings.Contains(got, "got minutes.txt") {
		t.Fatalf("after the MCP answer: %s", got)
	}
	// The chooser was an event too (replayed from the kept ones).
	if out := e.ok("events", "--since", "0", "--kind", "file_chooser.opened", "--count", "1"); !strings.Contains(out, `"kind":"file_chooser.opened"`) {
		t.Fatalf("the event: %s", out)
	}
	// From the CLI.
	e.ok("eval", "document.title = ''")
	e.ok("click", `role=button[name="Attach"]`)
	local := filepath.Join(t.TempDir(), "agenda.txt")
	os.WriteFile(local, []byte("agenda"), 0o600)
	e.ok("upload", "--chooser", local)
	if got := e.ok("eval", "document.title"); !strings.Contains(got, "got agenda.txt") {
		t.Fatalf("after the CLI answer: %s", got)
	}
	if r := e.run("upload", "--chooser", local); r.code != 1 || !strings.Contains(r.stderr, "no file chooser is open") {
		t.Fatalf("an answer with none pending: exit %d %s", r.code, r.stderr)
	}
}

// TestDrop: files and data dropped from the CLI and from MCP reach a drop
// zone; the ledger keeps the files' names and sizes, not their bytes.
func TestDrop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("drop.html"))
	file := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(file, []byte("MK-DROPPED"), 0o600)
	e.ok("--op-id", "drop-1", "drop", `role=region[name="Drop zone"]`, file, "--data", "text/plain=MK-TEXT")
	eventually(t, "the CLI's drop read", func() bool {
		return strings.Contains(e.ok("text"), "trusted:true text:MK-TEXT file:notes.txt:MK-DROPPED")
	})
	if show := e.ok("ops", "show", "drop-1"); strings.Contains(show, "MK-DROPPED") || !strings.Contains(show, `"name":"notes.txt"`) {
		t.Errorf("the ledger's record of the drop:\n%s", show)
	}
	if r := e.run("drop", `role=region[name="Drop zone"]`, "--data", "plain"); r.code != 2 {
		t.Errorf("data without a MIME type: exit %d %s", r.code, r.stderr)
	}
	m := startMCP(t, e, "--daemon")
	m.ok("browser_drop", map[string]any{"ref": `role=region[name="Drop zone"]`, "data": []string{"text/plain=MK-FROM-MCP"}})
	eventually(t, "the MCP drop read", func() bool { return strings.Contains(e.ok("text"), "text:MK-FROM-MCP") })
}
