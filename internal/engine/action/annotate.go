package action

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/snapshot"
)

// Annotated screenshots. A vision model sees pixels; an agent acts by
// refs. An annotated screenshot ties the two: each visible ref's box is
// outlined on the image and labelled with the ref, and the refs are
// listed with their snapshot lines. The labels are drawn on the decoded
// image in loupe, never put into the page: an overlay in the DOM would
// run the page's mutation observers and could be seen, moved or covered
// by the page itself.

// Label is one ref drawn on an annotated screenshot: its line as the
// snapshot prints it, and its box in the image's pixels.
type Label struct {
	Ref  string  `json:"ref"`
	Line string  `json:"line"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	W    float64 `json:"w"`
	H    float64 `json:"h"`
}

// Labelled names a ref to label: its frame ("" for the top document) and
// what its line shows.
type Labelled struct {
	Ref, FrameID, Role, Name string
}

// Annotate draws the refs that are visible in the shot on it and returns
// the new PNG and the labels drawn, in the order given. Refs are looked
// up in the tab's ref table (they must be current: take the snapshot
// first), their boxes read in one call per frame.
func Annotate(ctx context.Context, t *engine.Surface, shot *Shot, refs []Labelled) ([]byte, []Label, error) {
	w, h := PNGSize(shot.PNG)
	labels, err := engine.Exclusively(ctx, t, func() ([]Label, error) { return boxesOf(ctx, t, shot.Obs, refs, w, h) })
	if err != nil {
		return nil, nil, err
	}
	img, err := png.Decode(bytes.NewReader(shot.PNG))
	if err != nil {
		return nil, nil, fmt.Errorf("decoding the screenshot to annotate: %w", err)
	}
	canvas := image.NewRGBA(img.Bounds())
	draw.Draw(canvas, canvas.Bounds(), img, img.Bounds().Min, draw.Src)
	for _, l := range labels {
		drawLabel(canvas, l)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, canvas); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), labels, nil
}

// boxesOf finds the boxes of the refs within the shot (width x height
// pixels), in its pixels. Caller holds the tab.
func boxesOf(ctx context.Context, t *engine.Surface, obs Observation, refs []Labelled, width, height int) ([]Label, error) {
	byFrame := map[string][]int{}
	var frames []string
	ids := make([]int64, len(refs))
	for i, r := range refs {
		b, ok := t.Refs().Lookup(r.Ref)
		if !ok {
			continue
		}
		ids[i] = b.Elem
		if _, seen := byFrame[r.FrameID]; !seen {
			frames = append(frames, r.FrameID)
		}
		byFrame[r.FrameID] = append(byFrame[r.FrameID], i)
	}
	found := make([]*Label, len(refs))
	scale := obs.Scale
	if scale <= 0 {
		scale = 1
	}
	for _, frame := range frames {
		id := frame
		if id == "" {
			id = t.Root()
		}
		w, err := t.World(ctx, id)
		if err != nil {
			continue // the frame went away: its refs are not drawn
		}
		var ox, oy float64
		if id != t.Root() {
			if ox, oy, err = toTop(ctx, t, "", id, 0, 0, false); err != nil {
				continue
			}
		}
		idx := byFrame[frame]
		elems := make([]int64, len(idx))
		for k, i := range idx {
			elems[k] = ids[i]
		}
		var bs []*struct {
			X float64 `json:"x"`
			Y float64 `json:"y"`
			W float64 `json:"w"`
			H float64 `json:"h"`
		}
		if err := w.Call(ctx, "boxes", &bs, elems); err != nil {
			continue
		}
		for k, i := range idx {
			if k >= len(bs) || bs[k] == nil {
				continue
			}
			b := bs[k]
			// Top-level viewport, then page, then the image's pixels.
			x := (ox + b.X + obs.ScrollX - obs.ClipX) * scale
			y := (oy + b.Y + obs.ScrollY - obs.ClipY) * scale
			found[i] = &Label{Ref: refs[i].Ref, Line: snapshot.ElementLine(refs[i].Role, refs[i].Name, refs[i].Ref),
				X: x, Y: y, W: b.W * scale, H: b.H * scale}
		}
	}
	var out []Label
	for _, l := range found {
		if l != nil && l.X+l.W > 0 && l.Y+l.H > 0 && l.X < float64(width) && l.Y < float64(height) {
			out = append(out, *l)
		}
	}
	return out, nil
}

// Label colours: an outline and a tag that read on light and dark pages.
var (
	outline = color.RGBA{0xe0, 0x1b, 0x84, 0xff}
	tagInk  = color.RGBA{0xff, 0xff, 0xff, 0xff}
)

// drawLabel outlines a label's box and writes its ref in a tag on the
// box's top-left corner (inside the image).
func drawLabel(img *image.RGBA, l Label) {
	b := img.Bounds()
	r := image.Rect(int(l.X), int(l.Y), int(l.X+l.W), int(l.Y+l.H)).Intersect(b)
	if r.Empty() {
		return
	}
	for _, edge := range []image.Rectangle{
		image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+2), image.Rect(r.Min.X, r.Max.Y-2, r.Max.X, r.Max.Y),
		image.Rect(r.Min.X, r.Min.Y, r.Min.X+2, r.Max.Y), image.Rect(r.Max.X-2, r.Min.Y, r.Max.X, r.Max.Y),
	} {
		draw.Draw(img, edge.Intersect(b), image.NewUniform(outline), image.Point{}, draw.Src)
	}
	const px = 3 // each font dot, in image pixels: legible to a model at 1x
	w := len(l.Ref)*(glyphW+1)*px + px
	h := (glyphH + 2) * px
	// Above the box, where it hides nothing of the element; inside it
	// at the image's top edge.
	tag := image.Rect(r.Min.X, r.Min.Y-h, r.Min.X+w, r.Min.Y)
	if tag.Min.Y < b.Min.Y {
		tag = tag.Add(image.Pt(0, h))
	}
	if tag.Max.X > b.Max.X {
		tag = tag.Sub(image.Pt(tag.Max.X-b.Max.X, 0))
	}
	if tag.Max.Y > b.Max.Y {
		tag = tag.Sub(image.Pt(0, tag.Max.Y-b.Max.Y))
	}
	draw.Draw(img, tag.Intersect(b), image.NewUniform(outline), image.Point{}, draw.Src)
	x := tag.Min.X + px
	for _, c := range l.Ref {
		g, ok := glyphs[c]
		if !ok {
			continue
		}
		for row := 0; row < glyphH; row++ {
			for col := 0; col < glyphW; col++ {
				if g[row]&(1<<(glyphW-1-col)) != 0 {
					dot := image.Rect(x+col*px, tag.Min.Y+px+row*px, x+(col+1)*px, tag.Min.Y+px+(row+1)*px)
					draw.Draw(img, dot.Intersect(b), image.NewUniform(tagInk), image.Point{}, draw.Src)
				}
			}
		}
		x += (glyphW + 1) * px
	}
}

// A 3x5 font of what refs are made of: e and the digits.
const (
	glyphW = 3
	glyphH = 5
)

var glyphs = map[rune][glyphH]uint8{
	'e': {0b111, 0b101, 0b111, 0b100, 0b111},
	'0': {0b111, 0b101, 0b101, 0b101, 0b111},
	'1': {0b010, 0b110, 0b010, 0b010, 0b111},
	'2': {0b111, 0b001, 0b111, 0b100, 0b111},
	'3': {0b111, 0b001, 0b111, 0b001, 0b111},
	'4': {0b101, 0b101, 0b111, 0b001, 0b001},
	'5': {0b111, 0b100, 0b111, 0b001, 0b111},
	'6': {0b111, 0b100, 0b111, 0b101, 0b111},
	'7': {0b111, 0b001, 0b010, 0b010, 0b010},
	'8': {0b111, 0b101, 0b111, 0b101, 0b111},
	'9': {0b111, 0b101, 0b111, 0b001, 0b111},
}
