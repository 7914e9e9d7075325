package action_test

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

// TestAnnotatedScreenshot: each visible ref is outlined and labelled on
// the image where its element is — in a cross-site frame too — and listed
// with its snapshot line; the image is a whole PNG.
func TestAnnotatedScreenshot(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/top.html"))
	snap(t, tab) // the frames are attached
	s, err := capture.Take(ctxT(t), tab, capture.SnapshotOptions{Viewport: true})
	if err != nil {
		t.Fatal(err)
	}
	var refs []action.Labelled
	for _, r := range s.Refs {
		refs = append(refs, action.Labelled{Ref: r.Ref, FrameID: r.FrameID, Role: r.Role, Name: r.Name})
	}
	shot, err := action.Screenshot(ctxT(t), tab, action.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, labels, err := action.Annotate(ctxT(t), tab, shot, refs)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	inFrame := 0
	for _, l := range labels {
		if !strings.Contains(l.Line, "[ref="+l.Ref+"]") {
			t.Errorf("label %s: line %q", l.Ref, l.Line)
		}
		for _, r := range s.Refs {
			if r.Ref == l.Ref && r.FrameID != "" && r.Name == "Go" {
				inFrame++
			}
		}
		// The outline's top-left pixel is the label colour.
		x, y := int(l.X)+1, int(l.Y)+1
		if x >= 0 && y >= 0 && x < img.Bounds().Dx() && y < img.Bounds().Dy() {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 != 0xe0 || g>>8 != 0x1b || b>>8 != 0x84 {
				t.Errorf("label %s: pixel at (%d, %d) is %x %x %x, not the outline", l.Ref, x, y, r>>8, g>>8, b>>8)
			}
		}
	}
	if len(labels) == 0 || inFrame == 0 {
		t.Fatalf("labels %+v (%d in frames) of refs\n%s", labels, inFrame, s.Text)
	}
}
