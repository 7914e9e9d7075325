package ops

import (
	"log/slog"
	"math"
	"unicode/utf8"

	"github.com/loupe-dev/loupe/internal/keys"
	"github.com/loupe-dev/loupe/internal/secret"
	"github.com/loupe-dev/loupe/internal/wire"
)

// HumanInputIn is one piece of a person's input to a tab they have taken
// over, as the dashboard's live view sends it: at a point of the picture
// (CSS pixels of the viewport), or to whatever has focus.
type HumanInputIn struct {
	ID     string        `json:"surface_id" arg:"SURFACE_ID" help:"the tab, which a person has taken over"`
	Kind   string        `json:"kind" flag:"kind" meta:"KIND" help:"click, down, up, move, wheel, key or text"`
	X      float64       `json:"x,omitempty" flag:"x" meta:"N" help:"CSS pixels from the viewport's left (click, down, up, move, wheel)"`
	Y      float64       `json:"y,omitempty" flag:"y" meta:"N" help:"CSS pixels from the viewport's top"`
	Button string        `json:"button,omitempty" flag:"button" meta:"BUTTON" enum:"left,middle,right" help:"left (default), middle or right (click)"`
	Clicks int           `json:"clicks,omitempty" flag:"clicks" meta:"N" help:"1 (default) or 2 for a double click"`
	DX     float64       `json:"dx,omitempty" flag:"dx" meta:"N" help:"horizontal wheel delta in CSS pixels"`
	DY     float64       `json:"dy,omitempty" flag:"dy" meta:"N" help:"vertical wheel delta in CSS pixels"`
	Keys   string        `json:"keys,omitempty" flag:"keys" meta:"CHORD" help:"a key or chord (Enter, Control+A) for key"`
	Text   secret.String `json:"text,omitempty" flag:"text" meta:"TEXT" help:"text to type, for text"`

	chord  keys.Chord
	button keys.Button
}

// LogValue logs the input with its text redacted (a person may be typing
// a password).
func (in *HumanInputIn) LogValue() slog.Value {
	return slog.GroupValue(slog.String("surface_id", in.ID), slog.String("kind", in.Kind), slog.Any("text", in.Text))
}

// Parsed is the button and the chord Validate parsed.
func (in *HumanInputIn) Parsed() (keys.Button, keys.Chord) { return in.button, in.chord }

// maxPoint bounds a point of the viewport (CSS pixels).
const maxPoint = 100000

// maxHumanText bounds the text of one piece of input: a person types; a
// paste of more goes in pieces.
const maxHumanText = 10000

// Validate checks the kind and what it needs.
func (in *HumanInputIn) Validate() error {
	if in.ID == "" {
		return usage("missing %s (the tab a person took over)", fld("surface_id"))
	}
	for _, n := range []struct {
		name string
		v    float64
		max  float64
	}{{"x", in.X, maxPoint}, {"y", in.Y, maxPoint}, {"dx", in.DX, maxWheel}, {"dy", in.DY, maxWheel}} {
		lo := 0.0
		if n.name == "dx" || n.name == "dy" {
			lo = -n.max
		}
		if math.IsNaN(n.v) || n.v < lo || n.v > n.max {
			return usage("%s %v: want a number of CSS pixels from %g to %g", fld(n.name), n.v, lo, n.max)
		}
	}
	switch in.Kind {
	case "click", "down", "up", "move", "wheel":
		b, err := keys.ParseButton(in.Button)
		if err != nil {
			return usage("%s: %v", fld("button"), err)
		}
		in.button = b
		if in.Clicks < 0 || in.Clicks > 2 {
			return usage("%s %d: want 1 or 2", fld("clicks"), in.Clicks)
		}
		if in.Clicks == 0 {
			in.Clicks = 1
		}
	case "key":
		c, err := keys.ParseChord(in.Keys)
		if err != nil {
			return usage("%s: %v", fld("keys"), err)
		}
		in.chord = c
	case "text":
		if t := string(in.Text); t == "" || !utf8.ValidString(t) || utf8.RuneCountInString(t) > maxHumanText {
			return usage("%s: want 1 to %d characters of UTF-8", fld("text"), maxHumanText)
		}
	case "":
		return usage("missing %s: click, down, up, move, wheel, key or text", fld("kind"))
	default:
		return usage("%s %q: want click, down, up, move, wheel, key or text", fld("kind"), in.Kind)
	}
	return nil
}

// HumanInputOut says the input was given.
type HumanInputOut = wire.HumanInputOut

func humanOps() []*Op {
	o := describe[HumanInputIn, HumanInputOut]("human-input", "give a tab you have taken over a person's input: a click, a key, text (what the dashboard's live view sends)", Write, actTimeout).as(ActControl).sessionWide().noMCP("a person's own hands on a tab they hold; an agent acts with refs, in tabs that are its")
	o.Live = true
	return []*Op{o}
}
