package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/input"
)

func snap(t *testing.T, tab *Tab) *Snapshot {
	t.Helper()
	s, err := tab.Snapshot(ctxT(t), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ref returns the ref of the only node with that role and name.
func ref(t *testing.T, s *Snapshot, role, name string) string {
	t.Helper()
	var found []string
	for _, r := range s.Refs {
		if r.Role == role && r.Name == name {
			found = append(found, r.Ref)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s %q in snapshot, found %v:\n%s", role, name, found, s.Text)
	}
	return found[0]
}

func evalString(t *testing.T, tab *Tab, expr string) string {
	t.Helper()
	v, err := tab.Eval(ctxT(t), expr)
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := jsonv2.Unmarshal(v, &s); err != nil {
		t.Fatalf("eval %s: %s is not a string", expr, v)
	}
	return s
}

func wantCode(t *testing.T, err error, code apitype.Code) *apitype.Error {
	t.Helper()
	e, ok := apitype.As(err)
	if !ok || e.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	return e
}

func status(t *testing.T, tab *Tab) string {
	return evalString(t, tab, "document.getElementById('status').textContent")
}

func TestClickIsTrusted(t *testing.T) {
	tab := openTab(t, "form.html")
	s := snap(t, tab)
	if _, err := tab.Click(ctxT(t), ref(t, s, "button", "Go"), ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "clicked-go:true" {
		t.Fatalf("status %q", got)
	}
	if _, err := tab.Click(ctxT(t), ref(t, s, "button", "Twice"), ClickOptions{Count: 2}); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "dblclicked" {
		t.Fatalf("status %q", got)
	}
}

func TestClickScrollsIntoView(t *testing.T) {
	tab := openTab(t, "form.html")
	s := snap(t, tab)
	if _, err := tab.Click(ctxT(t), ref(t, s, "button", "Far away"), ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "clicked-far" {
		t.Fatalf("status %q", got)
	}
}

func TestClickNotActionable(t *testing.T) {
	tab := openTab(t, "form.html")
	s := snap(t, tab)
	cases := []struct{ name, want string }{
		{"Off", "disabled"},
		{"Under", "covered: div#overlay"},
		{"Moving", "keeps moving"},
	}
	for _, c := range cases {
		_, err := tab.Click(ctxT(t), ref(t, s, "button", c.name), ClickOptions{})
		e := wantCode(t, err, apitype.NotActionable)
		if !strings.Contains(e.Message, c.want) || !e.NotExecuted {
			t.Errorf("%s: %+v", c.name, e)
		}
	}
	if got := status(t, tab); got != "idle" {
		t.Fatalf("a refused click reached the page: %q", got)
	}
	// The invisible button is not in the snapshot at all.
	if strings.Contains(s.Text, "Ghost") {
		t.Fatalf("visibility:hidden button in snapshot:\n%s", s.Text)
	}
}

func TestFillControlledInput(t *testing.T) {
	tab := openTab(t, "form.html")
	s := snap(t, tab)
	r, err := tab.Fill(ctxT(t), ref(t, s, "textbox", "Controlled"), "héllo 👋")
	if err != nil {
		t.Fatal(err)
	}
	if r.Value != "héllo 👋" {
		t.Fatalf("value %v", r.Value)
	}
	if got := evalString(t, tab, "document.getElementById('echo').textContent"); got != "state:héllo 👋" {
		t.Fatalf("page state %q: input events did not reach the page", got)
	}
	// Fill replaces; an empty fill clears.
	for _, c := range []struct{ role, name, text string }{
		{"textbox", "Email", "new@example.com"},
		{"textbox", "Bio", "second"},
		{"textbox", "Editor", "rewritten"},
		{"textbox", "Email", ""},
	} {
		r, err := tab.Fill(ctxT(t), ref(t, s, c.role, c.name), c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(r.Value.(string)); got != c.text {
			t.Errorf("fill %s with %q: value %q", c.name, c.text, got)
		}
	}
	_, err = tab.Fill(ctxT(t), ref(t, s, "button", "Go"), "x")
	wantCode(t, err, apitype.NotActionable)
}

func TestTypeAndPress(t *testing.T) {
	tab := openTab(t, "form.html")
	s := snap(t, tab)
	keys := ref(t, s, "textbox", "Keys")
	if _, err := tab.Type(ctxT(t), keys, "aB"); err != nil {
		t.Fatal(err)
	}
	var chords []input.Chord
	for _, k := range []string{"Control+A", "Shift+Tab", "Enter"} {
		c, err := input.ParseChord(k)
		if err != nil {
			t.Fatal(err)
		}
		chords = append(chords, c)
	}
	if _, err := tab.Focus(ctxT(t), keys); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Press(ctxT(t), chords[:1]); err != nil {
		t.Fatal(err)
	}
	// Control+A selected everything: typing replaces it.
	if _, err := tab.Type(ctxT(t), "", "z"); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.getElementById('keys').value"); got != "z" {
		t.Fatalf("value after Control+A, z: %q", got)
	}
	if _, err := tab.Press(ctxT(t), chords[1:2]); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, tab, "document.getElementById('keylog').textContent"); got != "a S-B C-Control C-A z S-Shift S-Tab" {
		t.Fatalf("keys seen by the page: %q", got)
	}
	if got := evalString(t, tab, "document.activeElement.id"); got != "ctl" {
		t.Fatalf("Shift+Tab moved focus to %q", got)
	}
}

func TestCheckSelectHover(t *testing.T) {
	tab := openTab(t, "form.html")
	s := snap(t, tab)
	agree := ref(t, s, "checkbox", "Agree")
	if _, err := tab.SetChecked(ctxT(t), agree, true); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "agree:true" {
		t.Fatalf("status %q", got)
	}
	r, err := tab.SetChecked(ctxT(t), agree, true)
	if err != nil || r.Executed {
		t.Fatalf("checking a checked box: %+v %v", r, err)
	}
	if _, err := tab.SetChecked(ctxT(t), agree, false); err != nil {
		t.Fatal(err)
	}
	size := ref(t, s, "combobox", "Size")
	if _, err := tab.Select(ctxT(t), size, []string{"Large"}); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "size:l" {
		t.Fatalf("status %q", got)
	}
	_, err = tab.Select(ctxT(t), size, []string{"Huge"})
	wantCode(t, err, apitype.BadInput)
	if _, err := tab.Hover(ctxT(t), ref(t, s, "button", "Hover me")); err != nil {
		t.Fatal(err)
	}
	if got := status(t, tab); got != "hovered" {
		t.Fatalf("status %q", got)
	}
}

func TestRefsStableAndStale(t *testing.T) {
	tab := openTab(t, "form.html")
	s1 := snap(t, tab)
	s2 := snap(t, tab)
	if s1.Text != s2.Text {
		t.Fatalf("two snapshots of the same page differ:\n%s\n---\n%s", s1.Text, s2.Text)
	}
	// A removed element's ref is stale.
	rm := ref(t, s1, "button", "Remove me")
	if _, err := tab.Click(ctxT(t), rm, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := tab.Click(ctxT(t), rm, ClickOptions{})
	wantCode(t, err, apitype.StaleRef)

	// After navigation, old refs are stale even though the new page has a
	// button with the same name, and nothing is clicked.
	goRef := ref(t, s1, "button", "Go")
	if _, err := tab.Click(ctxT(t), ref(t, s1, "link", "Next page"), ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if _, err := tab.Wait(withTimeout(ctx, 5*time.Second), WaitOptions{Text: "MK-SECOND"}); err != nil {
		t.Fatal(err)
	}
	_, err = tab.Click(ctxT(t), goRef, ClickOptions{})
	e := wantCode(t, err, apitype.StaleRef)
	if !e.NotExecuted {
		t.Fatal("stale click not marked not_executed")
	}
	s3 := snap(t, tab)
	if ref(t, s3, "button", "Go") == goRef {
		t.Fatal("a ref was reused across documents")
	}
	// A ref never issued.
	_, err = tab.Click(ctxT(t), "e99999", ClickOptions{})
	wantCode(t, err, apitype.RefNotFound)
}

func TestWaits(t *testing.T) {
	tab := openTab(t, "form2.html")
	s := snap(t, tab)
	if _, err := tab.Click(ctxT(t), ref(t, s, "button", "Later"), ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Wait(withTimeout(ctxT(t), 3*time.Second), WaitOptions{Text: "late text"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := tab.Wait(withTimeout(ctxT(t), 300*time.Millisecond), WaitOptions{Text: "never there"})
	wantCode(t, err, apitype.Timeout)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a 300ms wait took %v", d)
	}
	if _, err := tab.Wait(withTimeout(ctxT(t), time.Second), WaitOptions{URL: "*/form2.html"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Wait(withTimeout(ctxT(t), time.Second), WaitOptions{Load: true}); err != nil {
		t.Fatal(err)
	}
}

func withTimeout(ctx context.Context, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	_ = cancel // released when the parent test context ends
	return ctx
}
