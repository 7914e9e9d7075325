// Package keys names the keys, chords and mouse buttons an agent asks
// for ("Enter", "Control+Shift+ArrowLeft", "right") and holds the US
// keyboard layout that says what each key sends. It has no protocol in
// it: the operation contract (package ops) checks an input's keys with it
// on any front end, and package input sends them to a page as CDP events.
package keys

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Modifier bits as CDP's Input domain counts them.
const (
	ModAlt   = 1
	ModCtrl  = 2
	ModMeta  = 4
	ModShift = 8
)

// Key describes one key of the US layout.
type Key struct {
	Key     string // KeyboardEvent.key
	Code    string // KeyboardEvent.code
	KeyCode int64  // windowsVirtualKeyCode
	Text    string // text the key types, "" for non-printing keys
	Shift   bool   // the character needs Shift on a US keyboard
}

// Chord is a key pressed with modifiers, as in "Control+A".
type Chord struct {
	Modifiers int64
	Key       Key
}

// Button names a mouse button.
type Button string

// ParseButton accepts left, right or middle ("" is left).
func ParseButton(s string) (Button, error) {
	switch s {
	case "", "left":
		return "left", nil
	case "right", "middle":
		return Button(s), nil
	}
	return "", fmt.Errorf("button %q: want left, right or middle", s)
}

var named = map[string]Key{}
var byChar = map[rune]Key{}

// shiftOf maps a character to the key the same physical key gives with
// Shift held ('a' → 'A', '1' → '!').
var shiftOf = map[rune]Key{}

func init() {
	add := func(k Key, aliases ...string) {
		named[strings.ToLower(k.Key)] = k
		for _, a := range aliases {
			named[strings.ToLower(a)] = k
		}
	}
	add(Key{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"}, "Return")
	add(Key{Key: "Tab", Code: "Tab", KeyCode: 9})
	add(Key{Key: "Backspace", Code: "Backspace", KeyCode: 8})
	add(Key{Key: "Delete", Code: "Delete", KeyCode: 46}, "Del")
	add(Key{Key: "Escape", Code: "Escape", KeyCode: 27}, "Esc")
	add(Key{Key: " ", Code: "Space", KeyCode: 32, Text: " "}, "Space")
	add(Key{Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38}, "Up")
	add(Key{Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40}, "Down")
	add(Key{Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37}, "Left")
	add(Key{Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39}, "Right")
	add(Key{Key: "Home", Code: "Home", KeyCode: 36})
	add(Key{Key: "End", Code: "End", KeyCode: 35})
	add(Key{Key: "PageUp", Code: "PageUp", KeyCode: 33})
	add(Key{Key: "PageDown", Code: "PageDown", KeyCode: 34})
	add(Key{Key: "Insert", Code: "Insert", KeyCode: 45})
	add(Key{Key: "CapsLock", Code: "CapsLock", KeyCode: 20})
	add(Key{Key: "ContextMenu", Code: "ContextMenu", KeyCode: 93})
	add(Key{Key: "Shift", Code: "ShiftLeft", KeyCode: 16})
	add(Key{Key: "Control", Code: "ControlLeft", KeyCode: 17}, "Ctrl")
	add(Key{Key: "Alt", Code: "AltLeft", KeyCode: 18}, "Option")
	add(Key{Key: "Meta", Code: "MetaLeft", KeyCode: 91}, "Cmd", "Command", "Super")
	for i := 1; i <= 12; i++ {
		add(Key{Key: fmt.Sprintf("F%d", i), Code: fmt.Sprintf("F%d", i), KeyCode: int64(111 + i)})
	}
	for c := 'a'; c <= 'z'; c++ {
		up := c - 'a' + 'A'
		byChar[c] = Key{Key: string(c), Code: "Key" + string(up), KeyCode: int64(up), Text: string(c)}
		byChar[up] = Key{Key: string(up), Code: "Key" + string(up), KeyCode: int64(up), Text: string(up), Shift: true}
		shiftOf[c] = byChar[up]
	}
	digits := ")!@#$%^&*("
	for i := 0; i <= 9; i++ {
		d := rune('0' + i)
		byChar[d] = Key{Key: string(d), Code: fmt.Sprintf("Digit%d", i), KeyCode: int64(d), Text: string(d)}
		s := rune(digits[i])
		byChar[s] = Key{Key: string(s), Code: fmt.Sprintf("Digit%d", i), KeyCode: int64(d), Text: string(s), Shift: true}
		shiftOf[d] = byChar[s]
	}
	punct := []struct {
		plain, shifted rune
		code           string
		keyCode        int64
	}{
		{'-', '_', "Minus", 189}, {'=', '+', "Equal", 187}, {'[', '{', "BracketLeft", 219},
		{']', '}', "BracketRight", 221}, {'\\', '|', "Backslash", 220}, {';', ':', "Semicolon", 186},
		{'\'', '"', "Quote", 222}, {',', '<', "Comma", 188}, {'.', '>', "Period", 190},
		{'/', '?', "Slash", 191}, {'`', '~', "Backquote", 192},
	}
	for _, p := range punct {
		byChar[p.plain] = Key{Key: string(p.plain), Code: p.code, KeyCode: p.keyCode, Text: string(p.plain)}
		byChar[p.shifted] = Key{Key: string(p.shifted), Code: p.code, KeyCode: p.keyCode, Text: string(p.shifted), Shift: true}
		shiftOf[p.plain] = byChar[p.shifted]
	}
	modifierKeys[ModCtrl], modifierKeys[ModAlt] = named["control"], named["alt"]
	modifierKeys[ModMeta], modifierKeys[ModShift] = named["meta"], named["shift"]
	byChar[' '] = named["space"]
	byChar['\n'] = named["enter"]
	byChar['\r'] = named["enter"]
	byChar['\t'] = named["tab"]
}

// modifierKeys are the keys that hold each modifier bit down.
var modifierKeys = map[int64]Key{}

var modifierBits = map[string]int64{
	"shift": ModShift, "control": ModCtrl, "ctrl": ModCtrl, "alt": ModAlt, "option": ModAlt,
	"meta": ModMeta, "cmd": ModMeta, "command": ModMeta, "super": ModMeta,
	// ControlOrMeta is the platform's shortcut modifier; loupe drives
	// Chromium on Linux, where that is Control.
	"controlormeta": ModCtrl,
}

// CharKey returns the US-layout key that types r, if there is one.
func CharKey(r rune) (Key, bool) {
	k, ok := byChar[r]
	return k, ok
}

// ParseChord parses one key chord: modifiers and a key joined by "+", such
// as "Enter", "Tab", "Control+A", "Shift+Tab" or "Control+Shift+ArrowLeft".
// Named keys and modifiers are case-insensitive; a single character (not a
// control character) is taken as written ("a" and "A" differ, and "A" alone
// does not hold Shift). With Shift held, a character becomes what its key
// gives with Shift on a US keyboard: "Shift+a" types "A", "Shift+1" types
// "!". "+" itself is written "Plus" or as the last character ("Control++").
func ParseChord(s string) (Chord, error) {
	if s == "" {
		return Chord{}, fmt.Errorf("empty key")
	}
	var parts []string
	if strings.HasSuffix(s, "++") || s == "+" {
		parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
		if s == "+" {
			parts = []string{"+"}
		}
	} else {
		parts = strings.Split(s, "+")
	}
	var c Chord
	for i, p := range parts {
		last := i == len(parts)-1
		if p == "" {
			return Chord{}, fmt.Errorf("%q: empty key between '+'", s)
		}
		if !last {
			bit, ok := modifierBits[strings.ToLower(p)]
			if !ok {
				return Chord{}, fmt.Errorf("%q: %q is not a modifier (Shift, Control, Alt, Meta)", s, p)
			}
			c.Modifiers |= bit
			continue
		}
		k, err := lookupKey(p)
		if err != nil {
			return Chord{}, fmt.Errorf("%q: %w", s, err)
		}
		c.Key = k
	}
	if c.Modifiers&ModShift != 0 && utf8.RuneCountInString(c.Key.Key) == 1 {
		r, _ := utf8.DecodeRuneInString(c.Key.Key)
		if k, ok := shiftOf[r]; ok {
			c.Key = k
		}
	}
	return c, nil
}

func lookupKey(p string) (Key, error) {
	if strings.EqualFold(p, "plus") {
		return byChar['+'], nil
	}
	if utf8.RuneCountInString(p) == 1 {
		r, _ := utf8.DecodeRuneInString(p)
		if k, ok := byChar[r]; ok {
			return k, nil
		}
		// Typed as text, so not a byte of broken UTF-8 (the page would get
		// U+FFFD) nor a control character.
		if utf8.ValidString(p) && !unicode.IsControl(r) {
			return Key{Key: p, Text: p}, nil
		}
	}
	if k, ok := named[strings.ToLower(p)]; ok {
		return k, nil
	}
	return Key{}, fmt.Errorf("unknown key %q (try Enter, Tab, Escape, ArrowDown, F5, a, …)", p)
}

// Modifier is a modifier key and its bit.
type Modifier struct {
	Bit int64
	Key Key
}

// modifierOrder is the order in which a chord's modifiers go down (and in
// which its canonical form names them).
var modifierOrder = []int64{ModCtrl, ModAlt, ModMeta, ModShift}

// Held is the chord's modifiers in the order they are pressed (Control,
// Alt, Meta, Shift); they are released in reverse.
func (c Chord) Held() []Modifier {
	var held []Modifier
	for _, bit := range modifierOrder {
		if c.Modifiers&bit != 0 {
			held = append(held, Modifier{Bit: bit, Key: modifierKeys[bit]})
		}
	}
	return held
}

// String writes the chord back in canonical form.
func (c Chord) String() string {
	var parts []string
	for _, m := range c.Held() {
		parts = append(parts, m.Key.Key)
	}
	k := c.Key.Key
	if k == " " {
		k = "Space"
	}
	return strings.Join(append(parts, k), "+")
}
