package surface

import (
	"strings"
	"testing"
)

func TestSurfaceParentFirstOrder(t *testing.T) {
	t.Parallel()
	type item struct{ id, parent string }
	key := func(i item) (string, string) { return i.id, i.parent }
	ids := func(l []item) string {
		var s []string
		for _, i := range l {
			s = append(s, i.id)
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct {
		name string
		in   []item
		want string
	}{
		{"empty", nil, ""},
		{"already parent-first keeps its order",
			[]item{{"s1", ""}, {"s3", "s1"}, {"s4", "s3"}, {"s2", ""}, {"s5", "s2"}},
			"s1 s3 s4 s2 s5"},
		// A webview guest that appeared before its host window, with a
		// frame of its own: the guest and its frame move under the host.
		{"webview listed before its host",
			[]item{{"s2", "s1"}, {"s5", "s2"}, {"s1", ""}, {"s3", "s1"}},
			"s1 s2 s5 s3"},
		{"parent not in the list is a root",
			[]item{{"s7", "s9"}, {"s1", ""}},
			"s7 s1"},
		{"deep chain listed backwards",
			[]item{{"s4", "s3"}, {"s3", "s2"}, {"s2", "s1"}, {"s1", ""}},
			"s1 s2 s3 s4"},
		{"a cycle keeps every item",
			[]item{{"s1", ""}, {"s2", "s3"}, {"s3", "s2"}, {"s4", "s2"}},
			"s1 s2 s3 s4"},
		{"own parent",
			[]item{{"s1", "s1"}},
			"s1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := parentFirst(c.in, key)
			if ids(got) != c.want {
				t.Fatalf("got %q, want %q", ids(got), c.want)
			}
			if len(got) != len(c.in) {
				t.Fatalf("lost items: %v", got)
			}
		})
	}
}
