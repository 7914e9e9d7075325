package live_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"os"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/live"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }

// spinning is a page that repaints every animation frame.
const spinning = `data:text/html,<title>spin</title><body style="margin:0"><div id=d style="width:100vw;height:100vh"></div><script>
let n = 0; (function f() { d.style.background = 'hsl(' + (n++ % 360) + ',80%,50%)'; requestAnimationFrame(f); })();</script>`

func openAt(t *testing.T, url string) (*engine.Browser, *engine.Surface) {
	b := enginetest.Browser()
	tab, err := surface.NewTab(enginetest.Ctx(t), b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = surface.CloseTab(context.Background(), b, tab.ID) })
	if _, err := nav.Navigate(enginetest.Ctx(t), tab, url); err != nil {
		t.Fatal(err)
	}
	return b, tab
}

func next(t *testing.T, ch <-chan live.Frame) live.Frame {
	t.Helper()
	select {
	case f, ok := <-ch:
		if !ok {
			t.Fatal("the frames ended")
		}
		return f
	case <-time.After(30 * time.Second): // a frame every 16 ms alone; generous for a loaded machine
		t.Fatal("no frame within 30 s")
	}
	return live.Frame{}
}

// TestWatchFrames: a watched tab sends decodable pictures of its viewport
// with the viewport's size, at no more than the frame rate asked for; a
// second viewer shares the screencast and gets the latest frame at once;
// the screencast stops with its last viewer.
func TestWatchFrames(t *testing.T) {
	t.Parallel()
	b, tab := openAt(t, spinning)
	ctx, cancel := context.WithCancel(enginetest.Ctx(t))
	frames, err := live.Watch(ctx, b, tab, live.Options{MaxFPS: 5})
	if err != nil {
		t.Fatal(err)
	}
	f := next(t, frames)
	img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
	if err != nil {
		t.Fatalf("frame %d is not a JPEG: %v", f.Seq, err)
	}
	if img.Bounds().Dx() < 100 || f.DeviceWidth < 100 || f.DeviceHeight < 100 || f.Painted.IsZero() {
		t.Fatalf("frame %d: %v picture, viewport %gx%g, painted %v", f.Seq, img.Bounds(), f.DeviceWidth, f.DeviceHeight, f.Painted)
	}
	// The rate bound, over 2 s of a page that paints 60 times a second.
	// It is judged on the cast's own clock, not the test's: a frame comes
	// only after the last one's ack, and acks are at least 200 ms apart,
	// so n frames after the first span at least n x 200 ms of Received —
	// however late a loaded machine lets this test read them. The lower
	// bound is loose for the same reason: a starved renderer paints less.
	start, first := time.Now(), f
	for time.Since(start) < 2*time.Second {
		f = next(t, frames)
	}
	n, span := f.Seq-first.Seq, f.Received.Sub(first.Received)
	if limit := int64(span/(time.Second/5)) + 1; n > limit || n < 2 {
		t.Errorf("%d frames in %v of the cast's clock at MaxFPS 5 (at most %d)", n, span, limit)
	}
	// A second viewer joins the same screencast.
	ctx2, cancel2 := context.WithCancel(enginetest.Ctx(t))
	second, err := live.Watch(ctx2, b, tab, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g := next(t, second); g.Seq < f.Seq {
		t.Errorf("the second viewer's first frame is %d, older than %d", g.Seq, f.Seq)
	}
	if n := live.Watching(b, tab.ID); n != 2 {
		t.Errorf("watching: %d, want 2", n)
	}
	cancel()
	cancel2()
	enginetest.Eventually(t, "the screencast stopping with its last viewer", func() bool { return live.Watching(b, tab.ID) == 0 })
	for range frames { // closed once the viewer has left
	}
}

// TestWatchEndsWithTab: a viewer's frames end when the tab closes.
func TestWatchEndsWithTab(t *testing.T) {
	t.Parallel()
	b, tab := openAt(t, spinning)
	frames, err := live.Watch(enginetest.Ctx(t), b, tab, live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	next(t, frames)
	if err := surface.CloseTab(enginetest.Ctx(t), b, tab.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second) // generous for a loaded machine
	for {
		select {
		case _, ok := <-frames:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("frames go on after the tab closed")
		}
	}
}
