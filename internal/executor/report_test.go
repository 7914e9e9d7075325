package executor

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/ops"
)

// TestCompare: a report says which surface the caller ended on and how
// it got there, the pages opened and closed, and the downloads begun; a
// write that started the browser opened nothing.
func TestCompare(t *testing.T) {
	st := func(surface, url string, downloads int64, pages ...string) *state {
		return &state{surface: surface, url: url, downloads: downloads, st: status.Status{Pages: pages}}
	}
	for _, tc := range []struct {
		name          string
		before, after *state
		want          apitype.Report
	}{
		{"nothing", st("s1", "a", 0, "s1"), st("s1", "a", 0, "s1"), apitype.Report{Surface: "s1"}},
		{"navigated", st("s1", "a", 0, "s1"), st("s1", "b", 0, "s1"), apitype.Report{Surface: "s1", Navigated: "b"}},
		{"switched", st("s1", "a", 0, "s1", "s2"), st("s2", "b", 0, "s1", "s2"), apitype.Report{Surface: "s2", SwitchedFrom: "s1"}},
		{"a popup and a download", st("s1", "a", 1, "s1"), st("s1", "a", 3, "s1", "s4"), apitype.Report{Surface: "s1", Opened: []string{"s4"}, DownloadsStarted: 2}},
		{"closed", st("s1", "a", 0, "s1", "s2"), st("s1", "a", 0, "s1"), apitype.Report{Surface: "s1", Closed: []string{"s2"}}},
		{"the browser it started", &state{none: true}, st("s1", "a", 0, "s1"), apitype.Report{Surface: "s1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := compare(tc.before, tc.after); !reflect.DeepEqual(*got, tc.want) {
				t.Fatalf("got %+v, want %+v", *got, tc.want)
			}
		})
	}
}

// TestDiffOf: the changed lines, as + and -, bounded; none when nothing
// changed.
func TestDiffOf(t *testing.T) {
	d := diffOf("- a\n- b", "- a\n- c")
	if d.Added != 1 || d.Removed != 1 || !strings.Contains(d.Lines, "+ - c") || !strings.Contains(d.Lines, "- - b") {
		t.Fatalf("diff %+v", d)
	}
	if d := diffOf("- a", "- a"); d.Added+d.Removed != 0 || d.Lines != "" {
		t.Fatalf("no change: %+v", d)
	}
	var long []string
	for i := range 500 {
		long = append(long, strings.Repeat("x", 20)+string(rune('a'+i%26)))
	}
	if d := diffOf("", strings.Join(long, "\n")); d.Added != 500 || len(d.Lines) > diffChars+200 || strings.Count(d.Lines, "\n") > diffLines+2 {
		t.Fatalf("unbounded: %d added, %d chars, %d lines", d.Added, len(d.Lines), strings.Count(d.Lines, "\n"))
	}
}

// TestReportStage: a write that asks for a report without a browser
// running gets one of everything it brings up; other calls take none.
func TestReportStage(t *testing.T) {
	x := New(Config{Home: t.TempDir(), Chromium: "/nonexistent"})
	w := fakeCall(t, describe[nothing]("open", ops.Write), nil, nil)
	w.req.Report = &apitype.ReportOptions{}
	leave, err := enter(t, reportStage{x}, w)
	if err != nil || leave == nil || w.before == nil || !w.before.none {
		t.Fatalf("before: %+v, %v", w.before, err)
	}
	o := &outcome{err: &apitype.Error{Code: apitype.Timeout}}
	leave(o)
	if o.report != nil {
		t.Fatalf("a failed write was reported: %+v", o.report)
	}
	for _, c := range []*call{fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, nil), fakeCall(t, describe[nothing]("open", ops.Write), nil, nil),
		fakeCall(t, describe[nothing]("close", ops.Write, noBrowser), nil, nil)} {
		if c.op.Name == "close" {
			c.req.Report = &apitype.ReportOptions{}
		}
		if leave, err := enter(t, reportStage{x}, c); leave != nil || err != nil {
			t.Fatalf("%s takes a report", c.op.Name)
		}
	}
}
