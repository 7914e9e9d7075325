package keys

import (
	"strings"
	"testing"
)

func TestParseChord(t *testing.T) {
	for _, tc := range []struct {
		in      string
		mods    int64
		key     string // KeyboardEvent.key
		code    string
		keyCode int64
		text    string
	}{
		{"Enter", 0, "Enter", "Enter", 13, "\r"},
		{"enter", 0, "Enter", "Enter", 13, "\r"},
		{"Return", 0, "Enter", "Enter", 13, "\r"},
		{"Tab", 0, "Tab", "Tab", 9, ""},
		{"Shift+Tab", ModShift, "Tab", "Tab", 9, ""},
		{"Escape", 0, "Escape", "Escape", 27, ""},
		{"esc", 0, "Escape", "Escape", 27, ""},
		{"Backspace", 0, "Backspace", "Backspace", 8, ""},
		{"Del", 0, "Delete", "Delete", 46, ""},
		{"Space", 0, " ", "Space", 32, " "},
		{" ", 0, " ", "Space", 32, " "},
		{"ArrowDown", 0, "ArrowDown", "ArrowDown", 40, ""},
		{"up", 0, "ArrowUp", "ArrowUp", 38, ""},
		{"Control+Shift+ArrowLeft", ModCtrl | ModShift, "ArrowLeft", "ArrowLeft", 37, ""},
		{"PageDown", 0, "PageDown", "PageDown", 34, ""},
		{"F5", 0, "F5", "F5", 116, ""},
		{"f12", 0, "F12", "F12", 123, ""},
		{"F1", 0, "F1", "F1", 112, ""},
		{"a", 0, "a", "KeyA", 65, "a"},
		{"A", 0, "A", "KeyA", 65, "A"},
		{"Control+a", ModCtrl, "a", "KeyA", 65, "a"},
		{"Control+A", ModCtrl, "A", "KeyA", 65, "A"},
		{"ctrl+c", ModCtrl, "c", "KeyC", 67, "c"},
		{"CONTROL+SHIFT+z", ModCtrl | ModShift, "Z", "KeyZ", 90, "Z"}, // Shift gives the shifted key
		{"Alt+F4", ModAlt, "F4", "F4", 115, ""},
		{"Option+x", ModAlt, "x", "KeyX", 88, "x"},
		{"Meta+v", ModMeta, "v", "KeyV", 86, "v"},
		{"Cmd+v", ModMeta, "v", "KeyV", 86, "v"},
		{"Command+v", ModMeta, "v", "KeyV", 86, "v"},
		{"Super+v", ModMeta, "v", "KeyV", 86, "v"},
		{"ControlOrMeta+a", ModCtrl, "a", "KeyA", 65, "a"},
		{"Control+Alt+Meta+Shift+k", ModCtrl | ModAlt | ModMeta | ModShift, "K", "KeyK", 75, "K"},
		{"Shift+Shift+a", ModShift, "A", "KeyA", 65, "A"},
		{"Shift+1", ModShift, "!", "Digit1", 49, "!"},
		{"Shift+/", ModShift, "?", "Slash", 191, "?"},
		{"1", 0, "1", "Digit1", 49, "1"},
		{"!", 0, "!", "Digit1", 49, "!"},
		{")", 0, ")", "Digit0", 48, ")"},
		{"-", 0, "-", "Minus", 189, "-"},
		{"_", 0, "_", "Minus", 189, "_"},
		{"?", 0, "?", "Slash", 191, "?"},
		{"Control+/", ModCtrl, "/", "Slash", 191, "/"},
		{"+", 0, "+", "Equal", 187, "+"},
		{"Plus", 0, "+", "Equal", 187, "+"},
		{"plus", 0, "+", "Equal", 187, "+"},
		{"Control++", ModCtrl, "+", "Equal", 187, "+"},
		{"Control+Plus", ModCtrl, "+", "Equal", 187, "+"},
		{"Control+Shift++", ModCtrl | ModShift, "+", "Equal", 187, "+"},
		{"Shift", 0, "Shift", "ShiftLeft", 16, ""},
		{"Control+Shift", ModCtrl, "Shift", "ShiftLeft", 16, ""},
		{"Meta", 0, "Meta", "MetaLeft", 91, ""},
		// A character off the US layout is typed as text.
		{"é", 0, "é", "", 0, "é"},
		{"Control+ж", ModCtrl, "ж", "", 0, "ж"},
	} {
		c, err := ParseChord(tc.in)
		if err != nil {
			t.Errorf("ParseChord(%q): %v", tc.in, err)
			continue
		}
		k := c.Key
		if c.Modifiers != tc.mods || k.Key != tc.key || k.Code != tc.code || k.KeyCode != tc.keyCode || k.Text != tc.text {
			t.Errorf("ParseChord(%q) = mods %d %+v; want mods %d key %q code %q keyCode %d text %q",
				tc.in, c.Modifiers, k, tc.mods, tc.key, tc.code, tc.keyCode, tc.text)
		}
	}
}

func TestParseChordErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // in the message
	}{
		{"", "empty key"},
		{"Control+", "empty key between '+'"},
		{"+a", "empty key between '+'"},
		{"Control++a", "empty key between '+'"},
		{"Control+Shift+", "empty key between '+'"},
		{"Hyper+a", `"Hyper" is not a modifier`},
		{"a+b", `"a" is not a modifier`},
		{"Enter+a", `"Enter" is not a modifier`},
		{"Control+Bogus", `unknown key "Bogus"`},
		{"Entr", `unknown key "Entr"`},
		{"F13", `unknown key "F13"`},
		{"ab", `unknown key "ab"`},
	} {
		c, err := ParseChord(tc.in)
		if err == nil {
			t.Errorf("ParseChord(%q) = %+v, want an error", tc.in, c)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseChord(%q) error %q, want it to mention %q", tc.in, err, tc.want)
		}
		if tc.in != "" && !strings.Contains(err.Error(), "\""+tc.in+"\"") {
			t.Errorf("ParseChord(%q) error %q does not quote the input", tc.in, err)
		}
	}
}

func TestChordString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"enter", "Enter"},
		{"Return", "Enter"},
		{"a", "a"},
		{"ctrl+a", "Control+a"},
		{"Shift+Control+Alt+Meta+x", "Control+Alt+Meta+Shift+X"},
		{"cmd+shift+z", "Meta+Shift+Z"},
		{"Space", "Space"},
		{"Control+ ", "Control+Space"},
		{"Control++", "Control++"},
		{"Plus", "+"},
		{"up", "ArrowUp"},
		{"esc", "Escape"},
		{"f5", "F5"},
		{"ControlOrMeta+s", "Control+s"},
	} {
		c, err := ParseChord(tc.in)
		if err != nil {
			t.Errorf("ParseChord(%q): %v", tc.in, err)
			continue
		}
		got := c.String()
		if got != tc.want {
			t.Errorf("ParseChord(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		// The canonical form parses back to the same chord.
		back, err := ParseChord(got)
		if err != nil || back != c {
			t.Errorf("ParseChord(%q) = %+v, %v; want %+v", got, back, err, c)
		}
	}
	if got := (Chord{Modifiers: ModShift, Key: Key{Key: "Tab"}}).String(); got != "Shift+Tab" {
		t.Errorf("String = %q", got)
	}
}

func TestCharKey(t *testing.T) {
	for _, tc := range []struct {
		r       rune
		key     string
		code    string
		keyCode int64
		text    string
		shift   bool
	}{
		{'a', "a", "KeyA", 65, "a", false},
		{'z', "z", "KeyZ", 90, "z", false},
		{'Q', "Q", "KeyQ", 81, "Q", true},
		{'0', "0", "Digit0", 48, "0", false},
		{'9', "9", "Digit9", 57, "9", false},
		{'@', "@", "Digit2", 50, "@", true},
		{'(', "(", "Digit9", 57, "(", true},
		{' ', " ", "Space", 32, " ", false},
		{'\n', "Enter", "Enter", 13, "\r", false},
		{'\r', "Enter", "Enter", 13, "\r", false},
		{'\t', "Tab", "Tab", 9, "", false},
		{'=', "=", "Equal", 187, "=", false},
		{'+', "+", "Equal", 187, "+", true},
		{'\'', "'", "Quote", 222, "'", false},
		{'"', "\"", "Quote", 222, "\"", true},
		{'\\', "\\", "Backslash", 220, "\\", false},
		{'|', "|", "Backslash", 220, "|", true},
		{'`', "`", "Backquote", 192, "`", false},
		{'~', "~", "Backquote", 192, "~", true},
		{';', ";", "Semicolon", 186, ";", false},
		{':', ":", "Semicolon", 186, ":", true},
		{'<', "<", "Comma", 188, "<", true},
		{'>', ">", "Period", 190, ">", true},
		{'{', "{", "BracketLeft", 219, "{", true},
		{'}', "}", "BracketRight", 221, "}", true},
	} {
		k, ok := CharKey(tc.r)
		if !ok {
			t.Errorf("CharKey(%q): no key", tc.r)
			continue
		}
		want := Key{Key: tc.key, Code: tc.code, KeyCode: tc.keyCode, Text: tc.text, Shift: tc.shift}
		if k != want {
			t.Errorf("CharKey(%q) = %+v, want %+v", tc.r, k, want)
		}
	}
	for _, r := range []rune{'é', 'ж', '€', '😀', '\u00a0', 0} {
		if k, ok := CharKey(r); ok {
			t.Errorf("CharKey(%q) = %+v, want none", r, k)
		}
	}
}

// Every printable ASCII character has a key on the US layout, and the key
// types that character.
func TestCharKeyCoversPrintableASCII(t *testing.T) {
	for r := rune(' '); r <= '~'; r++ {
		k, ok := CharKey(r)
		if !ok {
			t.Errorf("CharKey(%q): no key", r)
			continue
		}
		if k.Text != string(r) || k.Code == "" || k.KeyCode == 0 {
			t.Errorf("CharKey(%q) = %+v", r, k)
		}
	}
}

func TestParseButton(t *testing.T) {
	for in, want := range map[string]Button{"": "left", "left": "left", "right": "right", "middle": "middle"} {
		if got, err := ParseButton(in); err != nil || got != want {
			t.Errorf("ParseButton(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"Left", "back", "1", " left"} {
		if got, err := ParseButton(in); err == nil {
			t.Errorf("ParseButton(%q) = %q, want an error", in, got)
		}
	}
}
