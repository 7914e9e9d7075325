package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHistoryReplays: history lists what ran, oldest first, with the
// targets' stable locators; --as script is a shell script that, run in a
// fresh home on a fresh page, gets the page to the same state; what did
// not execute and a person's own commands are comments, not done again.
func TestHistoryReplays(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta charset="utf-8"><title>Form</title>
			<label>Name <input id="n"></label><label><input type="checkbox" id="c"> Agree</label>
			<label>Password <input type="password" id="pw"></label>
			<select aria-label="Size"><option>S</option><option>M</option><option>L</option></select>
			<button onclick="out.textContent = 'Sent: ' + n.value + (c.checked ? ' (agreed)' : '') + ' size ' + document.querySelector('select').value + (pw.value === 'MK-s3cret-pw' ? ' signed in' : '')">Send</button>
			<p id="out"></p>`)
	}))
	t.Cleanup(srv.Close)
	e := newEnv(t)
	e.ok("open", srv.URL)
	snap := e.ok("snapshot")
	e.ok("fill", refOf(t, snap, "textbox", "Name"), "Ada O'Lovelace")
	e.ok("check", refOf(t, snap, "checkbox", "Agree"))
	e.ok("select", refOf(t, snap, "combobox", "Size"), "L")
	// A password: its text is echoed masked and kept nowhere.
	if out := e.ok("fill", refOf(t, snap, "textbox", "Password"), "MK-s3cret-pw"); strings.Contains(out, "MK-s3cret-pw") {
		t.Fatalf("fill echoed the password: %s", out)
	}
	if r := e.run("click", `role=button[name="Nope"]`); r.code == 0 {
		t.Fatal("a click on nothing succeeded")
	}
	e.ok("takeover")
	e.ok("resume")
	e.ok("snapshot")
	e.ok("click", refOf(t, e.ok("snapshot"), "button", "Send"))
	want := "Sent: Ada O'Lovelace (agreed) size L signed in"
	if got := e.ok("text"); !strings.Contains(got, want) {
		t.Fatalf("the page after the run: %s", got)
	}

	list := e.ok("history")
	if !strings.Contains(list, `executed fill role=textbox[name="Name"]`) || strings.Index(list, "open") > strings.Index(list, "fill") {
		t.Fatalf("history:\n%s", list)
	}
	script := e.ok("history", "--as", "script")
	for _, w := range []string{
		`fill 'role=textbox[name="Name"]' 'Ada O'\''Lovelace'`,
		`# `, "not_executed", "a person's own command (takeover)",
	} {
		if !strings.Contains(script, w) {
			t.Fatalf("the script lacks %q:\n%s", w, script)
		}
	}
	if strings.Contains(script, "\n$LOUPE --session \"$S\" click 'role=button[name=\"Nope\"]'") {
		t.Fatalf("the script does again a write that did not execute:\n%s", script)
	}

	if strings.Contains(script, "MK-s3cret-pw") || !strings.Contains(script, `"$LOUPE_SECRET_1"`) {
		t.Fatalf("the script and the password:\n%s", script)
	}
	for _, f := range []string{"ledger.db", "ledger.db-wal"} {
		if b, err := os.ReadFile(filepath.Join(e.home, f)); err == nil && strings.Contains(string(b), "MK-s3cret-pw") {
			t.Fatalf("%s keeps the password", f)
		}
	}

	// A fresh home, a fresh page: the script gets it to the same state.
	fresh := newEnv(t)
	path := filepath.Join(t.TempDir(), "replay.sh")
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", path)
	cmd.Env = append(fresh.environ(), "LOUPE="+loupeBin, "LOUPE_SESSION=replayed", "LOUPE_SECRET_1=MK-s3cret-pw")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the script: %v\n%s\n%s", err, out, script)
	}
	if got := fresh.ok("--session", "replayed", "text"); !strings.Contains(got, want) {
		t.Fatalf("after the script the page shows: %s\nscript:\n%s", got, script)
	}
}

// TestHistoryByTask: history --task ID shows that task's writes only,
// wherever --task is on the line.
func TestHistoryByTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, _ := countingPage(t, `<button onclick="fetch('/hit')">Buy</button>`)
	e.ok("open", srv.URL+"/")
	e.ok("--task", "t1", "click", "role=button")
	e.ok("--task", "t2", "click", "role=button")
	for _, args := range [][]string{{"history", "--task", "t1"}, {"--task", "t1", "history"}} {
		out := e.ok(args...)
		if !strings.Contains(out, "(task t1)") || strings.Contains(out, "(task t2)") || strings.Contains(out, "(task cli)") {
			t.Errorf("loupe %s:\n%s", strings.Join(args, " "), out)
		}
	}
}
