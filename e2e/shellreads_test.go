package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestCheapReads: a snapshot read through a pipe is budgeted as MCP's is;
// snapshot -o writes the text to a file and says where
// and how big; --grep prints only the matching lines, with their
// ancestors and refs that still act; --since last prints what changed
// since the caller's last snapshot, and nothing when nothing did. The
// page is the large page's shape at a tenth of its size (500 rows, a
// snapshot of about 50,000 chars): on the large page the first --json
// snapshot alone, which looks up every ref's backend node id, took 6 to
// 7 s, for nothing these checks need.
func TestCheapReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("medium.html"))
	// Through a pipe (an agent's shell tool) the snapshot gets the MCP
	// budget and says how to see the rest; --max-chars lifts it.
	cut := e.ok("snapshot")
	if len(cut) > 40000+400 || !strings.Contains(cut, "[truncated: ") || !strings.Contains(cut, "or write it all with -o FILE)") {
		t.Fatalf("a piped snapshot of a 50,000-char page: %d chars, ending:\n%s", len(cut), cut[max(0, len(cut)-600):])
	}
	full := e.ok("snapshot", "--max-chars", "1000000")
	if len(full) < 45000 || strings.Contains(full, "[truncated") || !strings.Contains(full, "MK-LARGE-BOTTOM-7f3b") {
		t.Fatalf("--max-chars 1000000: %d chars", len(full))
	}

	path := filepath.Join(t.TempDir(), "page.txt")
	var wrote struct {
		Path          string `json:"path"`
		Chars, Tokens int
		Lines         int
	}
	e.okJSON(&wrote, "snapshot", "-o", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if wrote.Path != path || wrote.Chars < 1000 || len(b) < wrote.Chars || !strings.Contains(string(b), "[ref=e") {
		t.Fatalf("snapshot -o: %+v, %d bytes in the file", wrote, len(b))
	}
	// -o never overwrites: the second goes beside the first.
	second := strings.TrimSuffix(path, ".txt") + " (1).txt"
	if out := e.ok("snapshot", "-o", path); !strings.Contains(out, second) || strings.Contains(out, "[ref=") {
		t.Fatalf("snapshot -o printed the snapshot, or not where it went (%s):\n%s", second, out)
	}
	if again, _ := os.ReadFile(path); string(again) != string(b) {
		t.Fatal("snapshot -o overwrote its first file")
	}
	if r := e.run("snapshot", "-o", filepath.Join(t.TempDir(), "missing", "x.txt")); r.code != 1 || !strings.HasPrefix(r.stderr, "FILE_ERROR: ") {
		t.Fatalf("-o into a missing directory: exit %d %q", r.code, r.stderr)
	}
	if r := e.run("screenshot", "-o", "/dev/full"); r.code != 1 || !strings.HasPrefix(r.stderr, "FILE_ERROR: ") {
		t.Fatalf("-o /dev/full: exit %d %q", r.code, r.stderr)
	}

	grep := e.ok("snapshot", "--grep", "MK-LARGE-BOTTOM")
	if len(grep) > len(full)/10 || !strings.Contains(grep, "MK-LARGE-BOTTOM-7f3b") || !strings.HasPrefix(grep, "surface s1:") {
		t.Fatalf("--grep printed %d of %d chars:\n%.2000s", len(grep), len(full), grep)
	}
	// Every kept line but the header is the match or an ancestor of
	// it: each one indented less than the next, down to the match.
	lines := strings.Split(strings.TrimSpace(grep), "\n")
	body := lines[1 : len(lines)-1] // the header, the size line
	for i := 1; i < len(body); i++ {
		if indent(body[i]) <= indent(body[i-1]) && !strings.Contains(body[i], "MK-LARGE-BOTTOM") {
			t.Fatalf("--grep kept a line that is neither the match nor its ancestor:\n%s", grep)
		}
	}
	var g struct{ Matched int }
	e.okJSON(&g, "snapshot", "--grep", "mk-large-bottom")
	if g.Matched != 1 {
		t.Fatalf("--grep in another case matched %d lines", g.Matched)
	}
	if out := e.ok("snapshot", "--grep", "nowhere-on-this-page"); !strings.Contains(out, `(no line has "nowhere-on-this-page")`) {
		t.Fatalf("--grep of nothing:\n%s", out)
	}

	// --since last: nothing, then what a change added and removed.
	e.ok("snapshot")
	if out := e.ok("snapshot", "--since", "last"); !strings.Contains(out, "nothing changed since your last snapshot") {
		t.Fatalf("--since last with no change:\n%s", out)
	}
	e.ok("eval", `document.body.insertAdjacentHTML('afterbegin', '<button>MK-ADDED-BUTTON</button>')`)
	since := e.ok("snapshot", "--since", "last")
	if !strings.Contains(since, `+ - button "MK-ADDED-BUTTON" [ref=e`) || len(since) > 2000 {
		t.Fatalf("--since last after a change:\n%.3000s", since)
	}
	ref := refOf(t, strings.ReplaceAll(since, "+ - ", "- "), "button", "MK-ADDED-BUTTON")
	e.ok("click", ref) // a ref from a since read acts: the button takes focus
	// The since read became the last snapshot: the button is not new
	// again, only focused now.
	if out := e.ok("snapshot", "--since", "last"); !strings.Contains(out, `[focused] [ref=`+ref+`]`) || !strings.Contains(out, "1 line added, 1 removed") {
		t.Fatalf("after the click:\n%s", out)
	}
	var s struct {
		Since          string
		Added, Removed int
		Text           string
	}
	// Like is compared with like: an interactive snapshot with the last
	// interactive one, a whole one never with an interactive one.
	e.ok("snapshot", "-i")
	if out := e.ok("snapshot", "-i", "--since", "last"); !strings.Contains(out, "nothing changed since your last snapshot") {
		t.Fatalf("-i --since last after -i:\n%s", out)
	}
	e.okJSON(&s, "snapshot", "--since", "last")
	if !strings.HasPrefix(s.Since, "none") || !strings.Contains(s.Since, "interactive") || s.Added != 0 || !strings.Contains(s.Text, "MK-ADDED-BUTTON") {
		t.Fatalf("--since last after -i: %+v", s)
	}
	s = struct {
		Since          string
		Added, Removed int
		Text           string
	}{}
	e.okJSON(&s, "--session", "other", "snapshot", "--since", "last")
	if !strings.HasPrefix(s.Since, "none") {
		t.Fatalf("a first snapshot with --since last: %+v", s)
	}
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
