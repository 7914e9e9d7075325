package ledger

import (
	"context"
	"strings"
	"testing"
)

func TestIDMarksOnlyGrowAndOutliveTheProcess(t *testing.T) {
	t.Parallel()
	eachBackend(t, testIDMarks)
}

func testIDMarks(t *testing.T, b backend) {
	ctx := context.Background()
	l, path := newLedger(t, b)
	if got, err := l.IDs(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a new ledger's marks: %v %v, want none", got, err)
	}
	steps := []struct {
		session string
		m       IDMarks
	}{
		{"default", IDMarks{Surfaces: 3, Refs: 40}},
		{"other", IDMarks{Surfaces: 1, Refs: 2}},
		{"default", IDMarks{Surfaces: 2, Refs: 90}}, // surfaces lower: kept at 3
		{"default", IDMarks{Surfaces: 5, Refs: 10}}, // refs lower: kept at 90
	}
	for _, s := range steps {
		if err := l.KeepIDs(ctx, s.session, s.m); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]IDMarks{"default": {Surfaces: 5, Refs: 90}, "other": {Surfaces: 1, Refs: 2}}
	check := func(l *Ledger, when string) {
		t.Helper()
		got, err := l.IDs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || got["default"] != want["default"] || got["other"] != want["other"] {
			t.Errorf("%s: marks %v, want %v", when, got, want)
		}
	}
	check(l, "after the writes")
	l.Close()
	if err := l.KeepIDs(ctx, "default", IDMarks{}); err != ErrClosed {
		t.Errorf("KeepIDs on a closed ledger: %v, want ErrClosed", err)
	}
	check(openAt(t, path), "after reopening")
}

// A storage state a write sent is kept as its size only: its cookies are
// kept nowhere.
func TestKeptInputWithholdsStorageState(t *testing.T) {
	got := KeptInput([]byte(`{"path":"state.json","content":{"cookies":[{"name":"sid","value":"MK-SECRET"}]}}`), false)
	if strings.Contains(got, "MK-SECRET") || !strings.Contains(got, `"withheld"`) || !strings.Contains(got, `"path":"state.json"`) {
		t.Errorf("kept input: %s", got)
	}
}

// A route's body, given as text or as the bytes of the CLI's file, is
// kept as its size and digest only; the route's pattern and file name stay.
func TestKeptInputWithholdsRouteBody(t *testing.T) {
	for _, in := range []string{
		`{"pattern":"**/api/*","body":"MK-BODY-TEXT"}`,
		`{"pattern":"**/api/*","fulfill":"mock.json","body_data":"TUstQk9EWS1CWVRFUw=="}`, // MK-BODY-BYTES
	} {
		got := KeptInput([]byte(in), false)
		if strings.Contains(got, "MK-BODY") || strings.Contains(got, "TUstQk9EWS1") || !strings.Contains(got, `"withheld"`) || !strings.Contains(got, `"pattern":"**/api/*"`) {
			t.Errorf("kept input of %s: %s", in, got)
		}
	}
	if got := KeptInput([]byte(`{"pattern":"**/x","body":"MK"}`), false); !strings.Contains(got, `"bytes":2`) {
		t.Errorf("the size is not kept: %s", got)
	}
}
