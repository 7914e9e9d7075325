// Package input turns agent intents into trusted input: CDP Input domain
// events (mouse, wheel, keys, text), which the page receives as a person's
// input (isTrusted, with focus, default actions and input events). The
// keys, chords and buttons it sends are named and parsed by package keys,
// which the operation contract uses without linking CDP.
package input

import (
	"context"

	cdpproto "github.com/chromedp/cdproto/cdp"
	cdpinput "github.com/chromedp/cdproto/input"

	"github.com/loupe-dev/loupe/internal/keys"
)

func buttonsMask(b keys.Button) int64 {
	switch b {
	case "right":
		return 2
	case "middle":
		return 4
	}
	return 1
}

// AfterPressError is a click that failed after a button press reached the
// page: the page has seen input.
type AfterPressError struct{ Err error }

func (e *AfterPressError) Error() string { return "after the press: " + e.Err.Error() }
func (e *AfterPressError) Unwrap() error { return e.Err }

// Click moves the mouse to (x, y) in the top-level viewport and clicks
// count times (count 2 is a double click: two press/release pairs, the
// second with clickCount 2, as Chromium needs for dblclick). A failure
// after the first press is an *AfterPressError.
func Click(ctx context.Context, s cdpproto.Session, x, y float64, b keys.Button, count int, mods int64) error {
	if err := Move(ctx, s, x, y, mods); err != nil {
		return err
	}
	pressed := false
	for i := 1; i <= count; i++ {
		for _, t := range []cdpinput.DispatchMouseEventType{cdpinput.DispatchMouseEventTypeMousePressed, cdpinput.DispatchMouseEventTypeMouseReleased} {
			p := cdpinput.DispatchMouseEventParams{
				Type: t, X: x, Y: y, Modifiers: mods, Button: cdpinput.MouseButton(b),
				ClickCount: int64(i),
			}
			if t == cdpinput.DispatchMouseEventTypeMousePressed {
				p.Buttons = buttonsMask(b)
			}
			if _, err := cdpproto.Call(ctx, s, cdpinput.DispatchMouseEvent, p); err != nil {
				if pressed {
					return &AfterPressError{err}
				}
				return err
			}
			pressed = true
		}
	}
	return nil
}

// Move moves the mouse to (x, y).
func Move(ctx context.Context, s cdpproto.Session, x, y float64, mods int64) error {
	_, err := cdpproto.Call(ctx, s, cdpinput.DispatchMouseEvent, cdpinput.DispatchMouseEventParams{
		Type: cdpinput.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Modifiers: mods,
	})
	return err
}

// Wheel scrolls by (dx, dy) CSS pixels with the mouse at (x, y), as a
// person's wheel would: the page sees wheel events and scrolls what is under
// the pointer.
func Wheel(ctx context.Context, s cdpproto.Session, x, y, dx, dy float64) error {
	// Chromium requires both deltas, and cdproto's params omit a zero one.
	type wheel struct {
		Type   string  `json:"type"`
		X      float64 `json:"x"`
		Y      float64 `json:"y"`
		DeltaX float64 `json:"deltaX"`
		DeltaY float64 `json:"deltaY"`
	}
	return s.Call(ctx, cdpinput.CommandDispatchMouseEvent, wheel{Type: "mouseWheel", X: x, Y: y, DeltaX: dx, DeltaY: dy}, nil)
}

// Press presses and releases a chord: modifiers down in order, the key
// down and up, modifiers up in reverse.
func Press(ctx context.Context, s cdpproto.Session, c keys.Chord) error {
	mods := c.Held()
	var held int64
	for _, m := range mods {
		held |= m.Bit
		if err := keyEvent(ctx, s, cdpinput.DispatchKeyEventTypeRawKeyDown, m.Key, held, ""); err != nil {
			return err
		}
	}
	text := c.Key.Text
	// With Control, Alt or Meta held a key is a shortcut and types nothing.
	if c.Modifiers&(keys.ModCtrl|keys.ModAlt|keys.ModMeta) != 0 {
		text = ""
	}
	down := cdpinput.DispatchKeyEventTypeKeyDown
	if text == "" {
		down = cdpinput.DispatchKeyEventTypeRawKeyDown
	}
	if err := keyEvent(ctx, s, down, c.Key, held, text); err != nil {
		return err
	}
	if err := keyEvent(ctx, s, cdpinput.DispatchKeyEventTypeKeyUp, c.Key, held, ""); err != nil {
		return err
	}
	for i := len(mods) - 1; i >= 0; i-- {
		m := mods[i]
		held &^= m.Bit
		if err := keyEvent(ctx, s, cdpinput.DispatchKeyEventTypeKeyUp, m.Key, held, ""); err != nil {
			return err
		}
	}
	return nil
}

func keyEvent(ctx context.Context, s cdpproto.Session, t cdpinput.DispatchKeyEventType, k keys.Key, mods int64, text string) error {
	_, err := cdpproto.Call(ctx, s, cdpinput.DispatchKeyEvent, cdpinput.DispatchKeyEventParams{
		Type: t, Modifiers: mods, Text: text, UnmodifiedText: text, Key: k.Key, Code: k.Code,
		WindowsVirtualKeyCode: k.KeyCode, NativeVirtualKeyCode: k.KeyCode,
	})
	return err
}

// Type types text key by key: characters of the US layout as key presses
// (keydown, keypress, input, keyup), anything else (accents, emoji, other
// scripts) as text input of that character alone.
func Type(ctx context.Context, s cdpproto.Session, text string) error {
	for _, r := range text {
		k, ok := keys.CharKey(r)
		if !ok {
			if err := InsertText(ctx, s, string(r)); err != nil {
				return err
			}
			continue
		}
		var mods int64
		if k.Shift {
			mods = keys.ModShift
		}
		if err := keyEvent(ctx, s, cdpinput.DispatchKeyEventTypeKeyDown, k, mods, k.Text); err != nil {
			return err
		}
		if err := keyEvent(ctx, s, cdpinput.DispatchKeyEventTypeKeyUp, k, mods, ""); err != nil {
			return err
		}
	}
	return nil
}

// InsertText inserts text at the caret as an input method would: one
// beforeinput/input pair, no key events.
func InsertText(ctx context.Context, s cdpproto.Session, text string) error {
	_, err := cdpproto.Call(ctx, s, cdpinput.InsertText, cdpinput.InsertTextParams{Text: text})
	return err
}

// LeftDown presses the left button at (x, y), DragMove moves the mouse with
// it held, LeftUp releases it: the parts of a drag.
func LeftDown(ctx context.Context, s cdpproto.Session, x, y float64) error {
	return left(ctx, s, cdpinput.DispatchMouseEventTypeMousePressed, x, y, 1)
}

// DragMove moves the mouse to (x, y) with the left button held.
func DragMove(ctx context.Context, s cdpproto.Session, x, y float64) error {
	return left(ctx, s, cdpinput.DispatchMouseEventTypeMouseMoved, x, y, 1)
}

// LeftUp releases the left button at (x, y).
func LeftUp(ctx context.Context, s cdpproto.Session, x, y float64) error {
	return left(ctx, s, cdpinput.DispatchMouseEventTypeMouseReleased, x, y, 0)
}

func left(ctx context.Context, s cdpproto.Session, t cdpinput.DispatchMouseEventType, x, y float64, buttons int64) error {
	_, err := cdpproto.Call(ctx, s, cdpinput.DispatchMouseEvent, cdpinput.DispatchMouseEventParams{
		Type: t, X: x, Y: y, Button: "left", Buttons: buttons, ClickCount: 1,
	})
	return err
}
