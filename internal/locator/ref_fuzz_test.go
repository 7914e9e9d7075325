package locator

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzParseRef: a ref parses only in its canonical form, with or without
// one "@"; what parses normalises to e<n> with n ≥ 1, and the normal form
// is a fixed point.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{
		"e1", "@e12", "e0", "e01", "e-1", "e+1", "@@e1", "e", "@", "", "E1", "e1 ", " e1",
		"e9223372036854775807", "e9223372036854775808", "e1_000", "e١", "x12",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseRef(s)
		norm, nerr := NormalizeRef(s)
		if (err == nil) != (nerr == nil) {
			t.Fatalf("ParseRef(%q) err %v but NormalizeRef err %v", s, err, nerr)
		}
		if err != nil {
			return
		}
		if n < 1 {
			t.Fatalf("ParseRef(%q) = %d, want ≥ 1", s, n)
		}
		if want := "e" + strconv.FormatInt(n, 10); norm != want {
			t.Fatalf("NormalizeRef(%q) = %q, want %q", s, norm, want)
		}
		if strings.TrimPrefix(s, "@") != norm {
			t.Fatalf("ParseRef accepted %q, which is not e%d or @e%d", s, n, n)
		}
		if again, err := NormalizeRef(norm); err != nil || again != norm {
			t.Fatalf("NormalizeRef(%q) = %q, %v; want it unchanged", norm, again, err)
		}
	})
}
