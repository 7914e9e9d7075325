package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// A plot is a line chart of one or more series over a shared x axis,
// written as a standalone SVG. The load command draws its curves with it
// so that docs/scaling.md's figures are redrawn with every measurement;
// it is a few dozen lines because a plotting dependency for four charts
// would not pay its way.
type plot struct {
	Title, XLabel, YLabel string
	Series                []series
}

type series struct {
	Name   string
	Points []point
}

type point struct{ X, Y float64 }

// The chart's geometry, in SVG user units.
const (
	plotW, plotH                = 560.0, 320.0
	padL, padR, padTop, padBott = 64.0, 150.0, 36.0, 48.0
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"}

// writeSVG draws p. Axes start at zero and end at a round number above
// the largest value; every point is marked, and each series named in a
// legend at the right.
func (p plot) writeSVG(w io.Writer) error {
	maxX, maxY := 0.0, 0.0
	for _, s := range p.Series {
		for _, pt := range s.Points {
			maxX, maxY = math.Max(maxX, pt.X), math.Max(maxY, pt.Y)
		}
	}
	maxX, maxY = roundUp(maxX), roundUp(maxY)
	innerW, innerH := plotW-padL-padR, plotH-padTop-padBott
	x := func(v float64) float64 { return padL + v/maxX*innerW }
	y := func(v float64) float64 { return padTop + innerH - v/maxY*innerH }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.1f" y="20" font-size="13" font-weight="bold">%s</text>`+"\n", padL, html.EscapeString(p.Title))
	for i := 0; i <= 4; i++ {
		gx, gy := maxX*float64(i)/4, maxY*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x(0), y(gy), x(maxX), y(gy))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x(0)-4, y(gy)+4, num(gy))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(gx), y(0)+16, num(gx))
	}
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x(0), y(0), x(maxX), y(0))
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x(0), y(0), x(0), y(maxY))
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", padL+innerW/2, plotH-10, html.EscapeString(p.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(14 %.1f) rotate(-90)" text-anchor="middle">%s</text>`+"\n", padTop+innerH/2, html.EscapeString(p.YLabel))
	for i, s := range p.Series {
		c := palette[i%len(palette)]
		var pts []string
		for _, pt := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(pt.X), y(pt.Y)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c, strings.Join(pts, " "))
		for _, pt := range s.Points {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(pt.X), y(pt.Y), c)
		}
		ly := padTop + 14*float64(i)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`+"\n", plotW-padR+12, ly, plotW-padR+30, ly, c)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", plotW-padR+34, ly+4, html.EscapeString(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// roundUp is the smallest of 1, 2, 2.5 or 5 times a power of ten at or
// above v (1 for v ≤ 0): an axis's end.
func roundUp(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// num prints an axis value without needless decimals.
func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
