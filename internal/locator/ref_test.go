package locator

import "testing"

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"e1", 1},
		{"e12", 12},
		{"@e12", 12},
		{"e9223372036854775807", 1<<63 - 1},
	} {
		n, err := ParseRef(tc.in)
		if err != nil || n != tc.want {
			t.Errorf("ParseRef(%q) = %d, %v; want %d", tc.in, n, err, tc.want)
		}
	}
	for _, in := range []string{
		"", "@", "e", "@e", "x1", "E1", "12", "e0", "@e0", "e01", "e007", "e-1", "e+1",
		"e1.5", "e1x", "e 1", " e1", "e1 ", "@@e1", "e_1", "e0x1", "e١", "e9223372036854775808", "ref=e1",
	} {
		if n, err := ParseRef(in); err == nil {
			t.Errorf("ParseRef(%q) = %d, want an error", in, n)
		}
	}
}

func TestNormalizeRef(t *testing.T) {
	for in, want := range map[string]string{"e7": "e7", "@e7": "e7", "@e120": "e120"} {
		if got, err := NormalizeRef(in); err != nil || got != want {
			t.Errorf("NormalizeRef(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "@", "e0", "e01", "x1"} {
		if got, err := NormalizeRef(in); err == nil {
			t.Errorf("NormalizeRef(%q) = %q, want an error", in, got)
		}
	}
}
