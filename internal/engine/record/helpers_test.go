package record_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/record"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }

var ctxT = enginetest.Ctx

// needFFmpeg skips the test without ffmpeg (fails it under
// LOUPE_TEST_REQUIRE).
func needFFmpeg(t testing.TB) {
	t.Helper()
	for _, p := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(p); err != nil {
			testenv.Missing(t, p, "`scripts/ensure-deb.sh ffmpeg ffmpeg` (make test installs it)")
		}
	}
}

// pages serves this package's fixture pages (testdata) on loopback for
// one test.
func pages(t testing.TB) string {
	t.Helper()
	s := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(s.Close)
	return s.URL
}

// openPage opens a tab at one of testdata's pages, in the shared
// browser.
func openPage(t testing.TB, name string) *engine.Surface {
	t.Helper()
	return openIn(t, enginetest.Browser(), pages(t)+"/"+name)
}

// openIn opens a tab at url in a window of its own, and closes it after
// the test. A tab paints only while it is the front tab of its window: in
// one window, the tabs of the tests running beside this one would hide it
// and stop its pictures.
func openIn(t testing.TB, b *engine.Browser, url string) *engine.Surface {
	t.Helper()
	newWindow := true
	res, err := cdpproto.Call(ctxT(t), b.BrowserSession(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: &newWindow})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := b.SurfaceForTarget(ctxT(t), string(res.TargetID))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = surface.CloseTab(ctx, b, tab.ID)
	})
	enginetest.Goto(t, tab, url)
	return tab
}

// options records into a files directory of the test's own.
func options(t testing.TB) record.Options {
	return record.Options{Dir: filepath.Join(t.TempDir(), "files")}
}

// run waits d while the recording runs, and then until the page has sent
// its first picture: on a loaded machine the first screencast frame was
// seen to come after a whole second, and a recording with no picture is
// not kept. It must not end by itself.
func run(t *testing.T, rec *record.Recording, d time.Duration) {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-rec.Done():
		res, _ := rec.Result()
		t.Fatalf("the recording ended by itself: %+v", res)
	}
	enginetest.Eventually(t, "the first picture in the video", func() bool { return rec.Status().Frames > 0 })
}

// done waits (bounded) for a recording to end by itself.
func done(t testing.TB, rec *record.Recording) record.Result {
	t.Helper()
	return doneWithin(t, rec, enginetest.StepTimeout)
}

// doneWithin waits at most d for a recording to end by itself.
func doneWithin(t testing.TB, rec *record.Recording, d time.Duration) record.Result {
	t.Helper()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-rec.Done():
	case <-timer.C:
		t.Fatalf("the recording did not end within %v: %+v", d, rec.Status())
	}
	res, ok := rec.Result()
	if !ok {
		t.Fatal("done, but no result")
	}
	return res
}

// stop stops a recording at the end of the test if it still runs.
func stopAtEnd(t testing.TB, rec *record.Recording) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), enginetest.StepTimeout)
		defer cancel()
		_, _ = rec.Stop(ctx)
	})
}

// probed is what ffprobe says of a published file.
type probed struct {
	duration time.Duration
	frames   int
	distinct int // pictures that differ from the one before
}

// probeFile checks a published file on its own: it decodes to its end,
// and how long it is and how many of its frames differ.
func probeFile(t testing.TB, path string) probed {
	t.Helper()
	out, err := exec.CommandContext(ctxT(t), "ffprobe", "-v", "error", "-show_entries", "format=duration",
		"-of", "default=noprint_wrappers=1:nokey=1", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	sec, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("ffprobe %s: duration %q", path, out)
	}
	p := probed{duration: time.Duration(sec * float64(time.Second))}
	// framemd5 decodes every frame: a file that does not decode fails.
	// mpdecimate drops frames that look like the one before (the encoder
	// refines a picture it is given again, so repeats differ a little).
	p.frames = countFrames(t, path)
	p.distinct = countFrames(t, path, "-vf", "mpdecimate")
	return p
}

// countFrames decodes a file and counts its frames.
func countFrames(t testing.TB, path string, filter ...string) int {
	t.Helper()
	args := append([]string{"-v", "error", "-i", path}, filter...)
	sums, err := exec.CommandContext(ctxT(t), "ffmpeg", append(args, "-f", "framemd5", "-")...).Output()
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	n := 0
	for l := range strings.Lines(string(sums)) {
		if !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// wantKept checks a result that kept its file: the file is in dir, 0600,
// the size the result says, and decodes.
func wantKept(t testing.TB, res record.Result, dir string) probed {
	t.Helper()
	if !res.Kept || res.Path == "" {
		t.Fatalf("not kept: %+v", res)
	}
	if filepath.Dir(res.Path) != dir {
		t.Errorf("published at %s, not in %s", res.Path, dir)
	}
	fi, err := os.Lstat(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o600 || fi.Size() != res.Bytes {
		t.Errorf("%s: mode %v size %d, result says %d bytes", res.Path, fi.Mode(), fi.Size(), res.Bytes)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".loupe-record-") {
			t.Errorf("staging directory %s left behind", e.Name())
		}
	}
	return probeFile(t, res.Path)
}
