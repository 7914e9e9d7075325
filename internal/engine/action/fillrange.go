package action

import (
	"context"
	"math"
	"strconv"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/input"
	"github.com/loupe-dev/loupe/internal/keys"
)

// rangeField is what the page agent says of a range input (rangeOf).
type rangeField struct {
	OK     bool    `json:"ok"`
	Err    string  `json:"err"`
	Detail string  `json:"detail"`
	Range  bool    `json:"range"`
	Picker bool    `json:"picker"` // a date, time or color input: see fillPicker
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Step   float64 `json:"step"`
	Value  float64 `json:"value"`
}

// maxRangeKeys bounds the arrow keys a fill of a range input presses: a
// slider of more steps than that is set from its nearer end (Home, End),
// and one still further is refused.
const maxRangeKeys = 1000

// fillRange sets a range input (focused by rangeOf) to the number text
// with trusted keys, as a person at the keyboard would: arrows from its
// value, or from its nearer end (Home, End) when that is fewer keys. The
// page sees keydown, input and change events of its own slider.
func fillRange(ctx context.Context, t *engine.Surface, tg *target, rg rangeField, text string) (*Result, error) {
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, apitype.Errorf(apitype.BadInput, "%s is a slider: fill it with a number from %g to %g, not %q", tg.Ref, rg.Min, rg.Max, text)
	}
	if v < rg.Min || v > rg.Max {
		return nil, apitype.Errorf(apitype.BadInput, "%s is a slider from %g to %g: %g is outside it", tg.Ref, rg.Min, rg.Max, v)
	}
	from, first := rg.Value, ""
	steps := func(a float64) int { return int(math.Round((v - a) / rg.Step)) }
	best := abs(steps(from))
	if n := abs(steps(rg.Min)); n+1 < best {
		from, first, best = rg.Min, "Home", n+1
	}
	if n := abs(steps(rg.Max)); n+1 < best {
		from, first, best = rg.Max, "End", n+1
	}
	if best > maxRangeKeys {
		return nil, apitype.Errorf(apitype.BadInput, "%s: %g is %d steps of %g away, more than the %d keys a fill presses", tg.Ref, v, best, rg.Step, maxRangeKeys)
	}
	var chords []keys.Chord
	if first != "" {
		chords = append(chords, mustChord(first))
	}
	n, key := steps(from), "ArrowRight"
	if n < 0 {
		n, key = -n, "ArrowLeft"
	}
	for range n {
		chords = append(chords, mustChord(key))
	}
	for i, k := range chords {
		if err := input.Press(ctx, t.Session(), k); err != nil {
			if i == 0 {
				return nil, err
			}
			return nil, executedErr(err)
		}
	}
	return withValue(ctx, t, tg), nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// fillPicker sets a date, time, month, week or color input, whose value a
// person sets through the browser's own picker rather than by typing
// (inserted text is dropped by such an input, and a fill that typed it
// would report success on an empty field): the value is set as the picker
// would set it, in the input's own format, and the input and change
// events follow. Those events are not trusted — the picker is the
// browser's, not the page's, and headless has none to drive. A value in
// the wrong format is BAD_INPUT, not executed, naming the format.
func fillPicker(ctx context.Context, t *engine.Surface, tg *target, text string) (*Result, error) {
	var r struct {
		OK     bool   `json:"ok"`
		Err    string `json:"err"`
		Detail string `json:"detail"`
		Value  string `json:"value"`
	}
	if err := tg.World.Call(ctx, "setPicked", &r, tg.Elem, text); err != nil {
		return nil, executedErr(err)
	}
	if !r.OK {
		if r.Err == "badvalue" {
			return nil, apitype.Errorf(apitype.BadInput, "%s: %s", tg.Ref, r.Detail)
		}
		return nil, (&agentResult{Err: r.Err, Detail: r.Detail}).check(tg.Ref)
	}
	res := result(t, tg)
	res.Value = r.Value
	return res, nil
}
