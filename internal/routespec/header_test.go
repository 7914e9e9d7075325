package routespec

import "testing"

// Headers are read as "Name: value"; names outside HTTP's token
// characters and values with line breaks (a second header smuggled in)
// are refused.
func TestParseHeader(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Header{
		"X-Loupe: routed": {"X-Loupe", "routed"},
		"X-A:b:c":         {"X-A", "b:c"},
		"Cookie:":         {"Cookie", ""},
		" X-Pad :  v ":    {"X-Pad", "v "},
	} {
		if h, err := ParseHeader(in); err != nil || h != want {
			t.Errorf("%q: %+v %v, want %+v", in, h, err, want)
		}
	}
	for _, in := range []string{"no colon", ": empty name", "X Y: v", "X-A: a\r\nX-B: b", "X-A: \x00", "Bad/Name: v"} {
		if _, err := ParseHeader(in); err == nil {
			t.Errorf("%q was accepted", in)
		}
	}
}
