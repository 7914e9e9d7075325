package record

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/testenv"
)

// A finished file over the byte limit is cut to its first seconds that
// fit: a whole WebM that decodes, at most the limit, shorter than it was.
func TestFitCutsTheEnd(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(p); err != nil {
			testenv.Missing(t, p, "`scripts/ensure-deb.sh ffmpeg ffmpeg` (make test installs it)")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	file := filepath.Join(t.TempDir(), "recording.webm")
	// Four seconds of a moving test picture, in the recorder's codec.
	gen := exec.CommandContext(ctx, "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=15", "-t", "4",
		"-c:v", "libvpx", "-b:v", "1M", "-cluster_time_limit", "1000", "-f", "webm", file)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("making a video: %v %s", err, out)
	}
	info, err := probe(ctx, "ffprobe", file)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(file)
	limit := fi.Size() / 2
	fitted, err := fit(ctx, "ffmpeg", "ffprobe", file, info, fi.Size(), limit)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(file)
	if after.Size() > limit || after.Size() < limit/4 {
		t.Errorf("cut to %d bytes for a limit of %d (from %d)", after.Size(), limit, fi.Size())
	}
	again, err := probe(ctx, "ffprobe", file)
	if err != nil {
		t.Fatalf("the cut file does not decode: %v", err)
	}
	if again != fitted || fitted.duration >= info.duration || fitted.packets >= info.packets || fitted.packets == 0 {
		t.Errorf("cut from %v to %v (probed again: %v)", info, fitted, again)
	}
	if _, err := os.Stat(file + ".fit.webm"); !os.IsNotExist(err) {
		t.Errorf("the cut's working file is left: %v", err)
	}
	// A limit no start fits: an error, the file as it was.
	if _, err := fit(ctx, "ffmpeg", "ffprobe", file, fitted, after.Size(), 1<<10); err == nil {
		t.Error("a 1 KiB limit was met")
	}
	if last, _ := os.Stat(file); last.Size() != after.Size() {
		t.Errorf("a failed cut changed the file: %d bytes, was %d", last.Size(), after.Size())
	}
}
