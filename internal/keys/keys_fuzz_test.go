package keys

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// known reports whether k is a key of the layout (named or typing a
// character), or a single printable character off it, typed as text.
func known(k Key) bool {
	for _, n := range named {
		if k == n {
			return true
		}
	}
	if r, size := utf8.DecodeRuneInString(k.Key); size == len(k.Key) && size > 0 {
		if l, ok := byChar[r]; ok {
			return k == l
		}
		return utf8.ValidString(k.Key) && !unicode.IsControl(r) && k == Key{Key: k.Key, Text: k.Key}
	}
	return false
}

// FuzzParseChord: an accepted chord has a known key and only the four
// modifiers, prints in a form that reads back as the same chord, and a
// modifier given twice counts once.
func FuzzParseChord(f *testing.F) {
	for _, s := range []string{
		"Enter", "Control+Shift+A", "Shift+Tab", "ctrl+c", "Control++", "+", "Plus", "Shift+=", "Control+Control+a",
		"Shift+Shift", "ControlOrMeta+s", "Control+ ", "é", "Control+ж", "a+b", "Control+", "++", "F13",
		"\xff", "\x00", "Control+\x7f", "Shift+\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseChord(s)
		if err != nil {
			return
		}
		if !known(c.Key) {
			t.Fatalf("ParseChord(%q) gave the unknown key %+v", s, c.Key)
		}
		if c.Modifiers&^(ModAlt|ModCtrl|ModMeta|ModShift) != 0 {
			t.Fatalf("ParseChord(%q): modifiers %b", s, c.Modifiers)
		}
		str := c.String()
		back, err := ParseChord(str)
		if err != nil || back != c {
			t.Fatalf("ParseChord(%q) = %+v; its form %q reads back as %+v, %v", s, c, str, back, err)
		}
		if again := back.String(); again != str {
			t.Fatalf("canonical form not stable: %q -> %q", str, again)
		}
		// Control adds its bit and leaves the key; given twice, once.
		ctrl, err := ParseChord("Control+" + s)
		if err != nil || ctrl.Modifiers != c.Modifiers|ModCtrl || ctrl.Key != c.Key {
			t.Fatalf("ParseChord(%q) = %+v, %v; want %+v with Control", "Control+"+s, ctrl, err, c)
		}
		if twice, err := ParseChord("Control+ctrl+" + s); err != nil || twice != ctrl {
			t.Fatalf("ParseChord(%q) = %+v, %v; want %+v", "Control+ctrl+"+s, twice, err, ctrl)
		}
		shift, err := ParseChord("Shift+" + s)
		if err != nil || shift.Modifiers != c.Modifiers|ModShift {
			t.Fatalf("ParseChord(%q) = %+v, %v; want Shift added to %+v", "Shift+"+s, shift, err, c)
		}
		if twice, err := ParseChord("Shift+Shift+" + s); err != nil || twice != shift {
			t.Fatalf("ParseChord(%q) = %+v, %v; want %+v", "Shift+Shift+"+s, twice, err, shift)
		}
	})
}
