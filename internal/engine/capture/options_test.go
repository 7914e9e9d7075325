package capture_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

func TestSnapshotInteractive(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "dupes.html")
	full := snap(t, tab)
	s := snapWith(t, tab, capture.SnapshotOptions{Interactive: true})
	if strings.Contains(s.Text, "MK-DUPES-TOP") || strings.Contains(s.Text, "heading") {
		t.Fatalf("interactive keeps non-actionable content:\n%s", s.Text)
	}
	// Each Delete keeps its place, so the five can be told apart.
	for _, row := range []string{"Row one", "Row three", "Row five"} {
		if !strings.Contains(s.Text, "- listitem: "+row+"\n    - button \"Delete\" [ref=") {
			t.Fatalf("interactive lost the context %q:\n%s", row, s.Text)
		}
	}
	controls := 0
	for _, r := range full.Refs {
		if r.Control {
			controls++
			if !strings.Contains(s.Text, "[ref="+r.Ref+"]") {
				t.Fatalf("interactive lost %s (%s %q):\n%s\nfull:\n%s", r.Ref, r.Role, r.Name, s.Text, full.Text)
			}
		}
	}
	if n := strings.Count(s.Text, "[ref="); n != controls {
		t.Fatalf("interactive shows %d refs, want the %d controls:\n%s", n, controls, s.Text)
	}
	if s.Chars >= full.Chars {
		t.Fatalf("interactive (%d chars) is not smaller than full (%d)", s.Chars, full.Chars)
	}
}

func TestSnapshotDepthPerFrame(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	s := snapWith(t, tab, capture.SnapshotOptions{Depth: 1})
	// Depth 1: top-level nodes only in each frame, but frames still open
	// under their iframe nodes (their content starts again at level 0).
	if !strings.Contains(s.Text, `- iframe "cross-site frame" [ref=`) || !strings.Contains(s.Text, "\n  - button \"Go\" [ref=") {
		t.Fatalf("depth 1:\n%s", s.Text)
	}
	tab2 := openTab(t, "basic.html")
	s2 := snapWith(t, tab2, capture.SnapshotOptions{Depth: 2})
	if !strings.Contains(s2.Text, "- form [ref=") || !strings.Contains(s2.Text, "[more]") || strings.Contains(s2.Text, "First name") {
		t.Fatalf("depth 2 on basic:\n%s", s2.Text)
	}
}

// TestSnapshotCursor: an element made clickable by script (a pointer
// cursor of its own, an onclick handler) is a control, marked as such, in
// the default snapshot and in a frame; a child that only inherits the
// cursor is not, nor is plain text (which still gets a ref for its line).
func TestSnapshotCursor(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("cursor.html"))
	s := snap(t, tab)
	var card1, card2, framed string
	for _, l := range strings.Split(s.Text, "\n") {
		ref := refOfLine(l)
		switch {
		case strings.Contains(l, "[clickable]") && strings.Contains(l, "Card one"):
			card1 = ref
		case strings.Contains(l, "[clickable]") && strings.Contains(l, "Card two"):
			card2 = ref
		case strings.Contains(l, "[clickable]") && strings.Contains(l, "Framed"):
			framed = ref
		}
	}
	if card1 == "" || card2 == "" || framed == "" || strings.Count(s.Text, "[clickable]") != 3 {
		t.Fatalf("want three clickable controls (a card with a pointer cursor, one in the frame, one with a handler):\n%s", s.Text)
	}
	if !regexp.MustCompile(`- generic \[ref=e\d+\]: Plain text, not clickable`).MatchString(s.Text) || strings.Contains(s.Text, "details [cursor") {
		t.Fatalf("plain text must be a plain line with a ref, an inheriting child nothing:\n%s", s.Text)
	}
	i := snapWith(t, tab, capture.SnapshotOptions{Interactive: true})
	if strings.Contains(i.Text, "Plain text") || !strings.Contains(i.Text, "Card two") {
		t.Fatalf("interactive view keeps controls only:\n%s", i.Text)
	}
	for _, r := range []string{card1, card2, framed} {
		if _, err := action.Click(ctxT(t), tab, r, action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	after := snap(t, tab)
	if !regexp.MustCompile(`paragraph \[ref=e\d+\]: card2`).MatchString(after.Text) || !strings.Contains(after.Text, "framed card clicked") {
		t.Fatalf("cursor clicks:\n%s", after.Text)
	}
}

func TestSnapshotViewport(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "form.html")
	full := snap(t, tab)
	v := snapWith(t, tab, capture.SnapshotOptions{Viewport: true})
	if !strings.Contains(full.Text, "Far away") || strings.Contains(v.Text, "Far away") || !strings.Contains(v.Text, `button "Go"`) {
		t.Fatalf("viewport:\n%s", v.Text)
	}
	// Same refs as in the full snapshot.
	if ref(t, v, "button", "Go") != ref(t, full, "button", "Go") {
		t.Fatal("viewport snapshot changed a ref")
	}
}

func TestSnapshotScope(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "basic.html")
	full := snap(t, tab)
	nav := ref(t, full, "navigation", "")
	s := snapWith(t, tab, capture.SnapshotOptions{Scope: nav})
	if !strings.Contains(s.Text, `link "Preferences"`) || strings.Contains(s.Text, "First name") || strings.Contains(s.Text, "MK-BASIC-TOP") {
		t.Fatalf("scope to the navigation:\n%s", s.Text)
	}
	if s.Scope != nav || ref(t, s, "link", "Preferences") != ref(t, full, "link", "Preferences") {
		t.Fatalf("scoped refs differ from the full snapshot's")
	}
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "link", "Preferences"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := capture.Take(ctxT(t), tab, capture.SnapshotOptions{Scope: "e99999"}); err == nil {
		t.Fatal("a scope that was never issued was accepted")
	}

	// Scope into a cross-site frame by the ref of its iframe.
	a, _ := startPair(t)
	ftab := openTab(t, a.Page("frames/top.html"))
	fs := snap(t, ftab)
	cross := ref(t, fs, "iframe", "cross-site frame")
	sc := snapWith(t, ftab, capture.SnapshotOptions{Scope: cross})
	if !strings.Contains(sc.Text, "cross idle") || strings.Contains(sc.Text, "same idle") || strings.Contains(sc.Text, "top idle") {
		t.Fatalf("scope to the cross-site frame:\n%s", sc.Text)
	}
	goRefs := refsByFrame(sc, "button", "Go")
	if len(goRefs) != 1 {
		t.Fatalf("scoped frame refs: %v", goRefs)
	}
	for f, r := range goRefs {
		if refsByFrame(fs, "button", "Go")[f] != r {
			t.Fatalf("a ref in the scoped frame differs from the full snapshot's")
		}
		if _, err := action.Click(ctxT(t), ftab, r, action.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A scope inside the frame: its Go button alone.
	for _, r := range goRefs {
		one := snapWith(t, ftab, capture.SnapshotOptions{Scope: r})
		if strings.Count(one.Text, "\n- ") != 1 || !strings.Contains(one.Text, `- button "Go"`) || !strings.Contains(one.Text, "[ref="+r+"]") {
			t.Fatalf("scope to a button in the frame:\n%s", one.Text)
		}
	}
}

func TestSnapshotSizeAndMaxChars(t *testing.T) {
	t.Parallel()
	tab := bigTab(t, "large.html")
	full, err := capture.Take(longCtx(t), tab, capture.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Chars == 0 || full.Tokens != (full.Chars+3)/4 {
		t.Fatalf("size: chars %d tokens %d", full.Chars, full.Tokens)
	}
	if !strings.HasSuffix(full.Text, "chars, ~"+itoa(full.Tokens)+" tokens]\n") {
		t.Fatalf("footer: %q", full.Text[len(full.Text)-60:])
	}
	s, err := capture.Take(longCtx(t), tab, capture.SnapshotOptions{MaxChars: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Truncated || s.Chars > 5000 {
		t.Fatalf("max-chars: truncated %v, %d chars", s.Truncated, s.Chars)
	}
	lines := strings.Split(strings.TrimSuffix(s.Text, "\n"), "\n")
	note := lines[len(lines)-2]
	if !regexp.MustCompile(`^\[truncated: \d+ of (more than )?\d+ lines shown\]$`).MatchString(note) {
		t.Fatalf("truncation note: %q", note)
	}
	// Every kept line is a whole line of the full snapshot.
	fullLines := map[string]bool{}
	for _, l := range strings.Split(full.Text, "\n") {
		fullLines[l] = true
	}
	for _, l := range lines[1 : len(lines)-2] {
		if !fullLines[l] {
			t.Fatalf("a line was cut: %q", l)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
