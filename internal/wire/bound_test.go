package wire

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestEveryStringIsBoundedOrOurs: every string field of every output says
// whether a page controls it (and how far it may run) or it is loupe's
// own: a new field cannot slip through unbounded.
func TestEveryStringIsBoundedOrOurs(t *testing.T) {
	var missing []string
	seen := map[reflect.Type]bool{}
	for name, v := range examples() {
		untagged(reflect.TypeOf(v), name+": ", seen, &missing)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s has no cap tag (cap:\"title\", \"url\", \"value\", \"text\", \"page\" or \"-\")", m)
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…[+3 chars]"},
		{"ééééé", 2, "éé…[+3 chars]"},
		{"ééé", 3, "ééé"}, // 6 bytes but 3 characters
		{"x", 0, "x"},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestBoundCutsPageStrings: a huge title, URL, name and echoed value are
// cut, loupe's own fields are left alone, nested and listed values too.
func TestBoundCutsPageStrings(t *testing.T) {
	huge := strings.Repeat("t", 1_000_000)
	tabs := &TabsOut{Active: "s1", Tabs: []Tab{{ID: "s1", Title: huge, URL: "https://x.test/" + huge}}}
	Bound(tabs)
	if n := len(tabs.Tabs[0].Title); n > 300+20 || !strings.HasSuffix(tabs.Tabs[0].Title, "…[+999700 chars]") {
		t.Errorf("title: %d chars, ends %q", n, tabs.Tabs[0].Title[len(tabs.Tabs[0].Title)-20:])
	}
	if n := len(tabs.Tabs[0].URL); n > 2048+20 {
		t.Errorf("url: %d chars", n)
	}
	act := &ActOut{Surface: "s1", Value: huge}
	Bound(act)
	if s, _ := act.Value.(string); len(s) > 200+20 {
		t.Errorf("echoed value: %d chars", len(s))
	}
	sel := &ActOut{Value: []string{huge, "b"}}
	Bound(sel)
	if v := sel.Value.([]string); len(v[0]) > 220 || v[1] != "b" {
		t.Errorf("echoed values: %d, %q", len(v[0]), v[1])
	}
}

// BenchmarkBoundLargeSnapshot: bounding the output of the large page's
// snapshot (15,000 refs, 534k characters of text), which every snapshot
// reply pays.
func BenchmarkBoundLargeSnapshot(b *testing.B) {
	refs := make([]RefInfo, 15000)
	for i := range refs {
		refs[i] = RefInfo{Ref: "e1234", Role: "button", Name: "Button number 1234", Control: true}
	}
	out := &SnapshotOut{Snapshot{SurfaceID: "s1", URL: "https://example.com/", Title: "Large", Text: strings.Repeat("x", 534000), Refs: refs}}
	b.ResetTimer()
	for range b.N {
		Bound(out)
	}
}

// TestBoundMakesPageStringsSafe: what a page wrote reaches the output with
// its terminal controls and bidi overrides escaped, on one line — except
// what is read on purpose, which keeps its lines.
func TestBoundMakesPageStringsSafe(t *testing.T) {
	out := &ConsoleOut{Records: []ConsoleRecord{{Level: "log", Text: "copy\x1b]52;c;cGF5\x07 then\nfake line \u202eevil", URL: "http://x/\x1b[2J"}}}
	Bound(out)
	r := out.Records[0]
	if r.Text != `copy\x1b]52;c;cGF5\x07 then\nfake line \u202eevil` || r.URL != `http://x/\x1b[2J` {
		t.Fatalf("console record: %q %q", r.Text, r.URL)
	}
	if txt := out.Text(); strings.Count(txt, "\n") != 0 || strings.ContainsAny(txt, "\x1b\x07\u202e") {
		t.Fatalf("console text: %q", txt)
	}
	v := &ValueOut{Value: "line one\nline two\x1b[2J"}
	Bound(v)
	if v.Value != "line one\nline two\\x1b[2J" {
		t.Fatalf("value read on purpose: %q", v.Value)
	}
}
