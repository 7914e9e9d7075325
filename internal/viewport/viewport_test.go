package viewport

import (
	"math"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, ok := range []Viewport{{Width: 390, Height: 844}, {Width: Min, Height: Max, Scale: MaxScale, Mobile: true}, {Width: 1280, Height: 720, Scale: 0.5}} {
		if err := ok.Check(); err != nil {
			t.Errorf("%+v refused: %v", ok, err)
		}
	}
	for _, bad := range []Viewport{{Width: Min - 1, Height: 500}, {Width: 500, Height: Max + 1}, {Width: 500, Height: 500, Scale: -1},
		{Width: 500, Height: 500, Scale: MaxScale + 1}, {Width: 500, Height: 500, Scale: math.NaN()}} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
