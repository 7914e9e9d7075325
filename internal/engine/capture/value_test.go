package capture_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

// TestWrappingComboboxHasNoValue: a combobox that holds its own fields
// prints them as its children and says no value of its own (its text
// content would repeat them, the hidden select's options too); one that
// only shows text keeps it as its value.
func TestWrappingComboboxHasNoValue(t *testing.T) {
	t.Parallel()
	tab := enginetest.OpenTab(t, "combo-wrap.html")
	s, err := capture.Take(enginetest.Ctx(t), tab, capture.SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wrap, city string
	for _, l := range strings.Split(s.Text, "\n") {
		switch {
		case strings.HasPrefix(l, "- combobox [ref="):
			wrap = l
		case strings.HasPrefix(l, `- combobox "City"`):
			city = l
		}
	}
	if wrap == "" || strings.Contains(wrap, ": ") {
		t.Fatalf("the wrapping combobox's line %q says a value (or is missing):\n%s", wrap, s.Text)
	}
	if !strings.Contains(s.Text, `option "Choose a person" [selected]`) || !strings.Contains(s.Text, `searchbox "Find a person"`) {
		t.Fatalf("the wrapped fields are not its children:\n%s", s.Text)
	}
	if !strings.Contains(city, ": Berlin") {
		t.Fatalf("the select-only combobox's line %q does not show its value", city)
	}
}
