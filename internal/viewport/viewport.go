// Package viewport is a tab's viewport preference: the size and scale its
// pages are laid out at (emulated; the window does not change). The
// operation contract checks one an agent asks for (loupe viewport
// 390x844), and the daemon applies it and keeps it with the tab across
// restarts (package restore); both use this one definition.
package viewport

import (
	"fmt"
	"math"
)

// Viewport is a viewport preference.
type Viewport struct {
	Width  int     `json:"width"`
	Height int     `json:"height"`
	Scale  float64 `json:"scale,omitempty"` // device pixel ratio; 0 is the screen's
	Mobile bool    `json:"mobile,omitempty"`
}

// Limits of a viewport preference.
const (
	Min      = 100
	Max      = 10000
	MaxScale = 10
)

// Check says what is wrong with a viewport preference, if anything.
func (v Viewport) Check() error {
	if v.Width < Min || v.Width > Max || v.Height < Min || v.Height > Max {
		return fmt.Errorf("viewport %dx%d: want each side from %d to %d pixels", v.Width, v.Height, Min, Max)
	}
	if math.IsNaN(v.Scale) || v.Scale < 0 || v.Scale > MaxScale {
		return fmt.Errorf("viewport scale %v: want 0 (the screen's) up to %d", v.Scale, MaxScale)
	}
	return nil
}
