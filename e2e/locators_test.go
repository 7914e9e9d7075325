package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

func TestLocatorsThroughCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := testpages.Start(t, "127.0.0.1")
	e.ok("open", srv.Page("dupes.html"))
	snap := e.ok("snapshot", "--locators")
	if !regexp.MustCompile(`textbox "Message" \[ref=e\d+\] \[locator=role=textbox\[name="Message"\]\]`).MatchString(snap) {
		t.Fatalf("--locators:\n%s", snap)
	}
	// A locator works wherever a ref does.
	e.ok("click", `role=button[name="Save"]`)
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"clicked-visible-save\"\n" {
		t.Fatalf("click by locator landed on %s", got)
	}
	// Several matches: AMBIGUOUS with the candidates' refs, nothing clicked.
	r := e.run("--json", "click", `role=button[name="Delete"]`)
	var got struct {
		Error struct {
			Code        string   `json:"code"`
			Candidates  []string `json:"candidates"`
			NotExecuted bool     `json:"not_executed"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Error.Code != "AMBIGUOUS" || len(got.Error.Candidates) != 5 || !got.Error.NotExecuted {
		t.Fatalf("ambiguous locator: %d %s", r.code, r.stdout)
	}
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"clicked-visible-save\"\n" {
		t.Fatalf("an ambiguous locator acted: %s", got)
	}
	r = e.run("click", `role=button[name="Nothing like this"]`)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "REF_NOT_FOUND") {
		t.Fatalf("locator matching nothing: %d %q", r.code, r.stderr)
	}

	// A stale ref names its successor, found by its locator, and does not
	// act on it.
	// The visible Save is the last one (an aria-hidden copy is shown
	// above it, marked).
	saves := regexp.MustCompile(`button "Save" \[ref=(e\d+)\]`).FindAllStringSubmatch(snap, -1)
	save := saves[len(saves)-1][1]
	e.ok("open", srv.Page("dupes.html"))
	r = e.run("--json", "click", save)
	var stale struct {
		Error struct {
			Code        string   `json:"code"`
			SimilarRefs []string `json:"similar_refs"`
			NotExecuted bool     `json:"not_executed"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &stale); err != nil || stale.Error.Code != "STALE_REF" || len(stale.Error.SimilarRefs) != 1 || !stale.Error.NotExecuted {
		t.Fatalf("stale ref: %s", r.stdout)
	}
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"\"\n" {
		t.Fatalf("a stale ref acted: %s", got)
	}
	e.ok("click", stale.Error.SimilarRefs[0])
	if got := e.ok("eval", "document.getElementById('status').textContent"); got != "\"clicked-visible-save\"\n" {
		t.Fatalf("the similar ref: %s", got)
	}

	// Scope by a locator; a selector that matches twice fails clearly.
	e.ok("open", srv.Page("basic.html"))
	scoped := e.ok("snapshot", "--scope", "role=navigation")
	if !strings.Contains(scoped, `link "Preferences"`) || strings.Contains(scoped, "First name") {
		t.Fatalf("scope by locator:\n%s", scoped)
	}
	r = e.run("snapshot", "--scope", "css=fieldset")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "AMBIGUOUS") {
		t.Fatalf("scope matching twice: %d %q", r.code, r.stderr)
	}
	// In text mode too, the candidates are listed, as the CLI takes refs.
	if !regexp.MustCompile(`(?m)^candidates: @e\d+ @e\d+$`).MatchString(r.stderr) {
		t.Fatalf("AMBIGUOUS in text mode lists no candidates: %q", r.stderr)
	}
}
