package record

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// writeTimeout bounds one picture's write to ffmpeg: milliseconds
// normally, seconds on a loaded machine; longer means ffmpeg is stuck.
const writeTimeout = 20 * time.Second

// tools finds ffmpeg and ffprobe (both in Debian's package ffmpeg).
func tools(o Options) (ffmpeg, ffprobe string, err error) {
	find := func(given, name string) (string, error) {
		if given == "" {
			given = name
		}
		p, err := exec.LookPath(given)
		if err != nil {
			return "", apitype.Wrap(apitype.TransportUnsupported, err,
				"recording needs %s, which is not installed (%s): it comes with Debian's package ffmpeg", name, given).
				Fix("install Debian's package ffmpeg (apt-get install ffmpeg), then record again")
		}
		return p, nil
	}
	if ffmpeg, err = find(o.FFmpeg, "ffmpeg"); err != nil {
		return "", "", err
	}
	if ffprobe, err = find(o.FFprobe, "ffprobe"); err != nil {
		return "", "", err
	}
	return ffmpeg, ffprobe, nil
}

// encoder is one ffmpeg child process that reads JPEG pictures on its
// standard input at fps a second and writes a WebM file. It is started and
// stopped by its own process id only; closing its input ends it (also
// when loupe itself dies: the pipe closes with it).
type encoder struct {
	cmd    *exec.Cmd
	in     *os.File      // the write end of ffmpeg's standard input
	exited chan struct{} // closed once ffmpeg has exited and been waited for
	err    error         // Wait's error, set before exited closes
	log    tail          // the end of ffmpeg's messages
}

// startEncoder starts ffmpeg writing out, a w×h video; a picture of
// another size is scaled into it and padded. maxBytes is ffmpeg's own
// bound on the file (-fs), a backstop to the recording's.
func startEncoder(bin, out string, w, h int, maxBytes int64) (*encoder, error) {
	size := fmt.Sprintf("%d:%d", w, h)
	args := []string{
		"-hide_banner", "-loglevel", "error", "-nostats",
		// Pictures as they come, without waiting to probe several.
		"-f", "image2pipe", "-framerate", strconv.Itoa(fps), "-c:v", "mjpeg",
		"-probesize", "32", "-analyzeduration", "0", "-fpsprobesize", "0",
		"-i", "pipe:0",
		"-an",
		"-vf", "scale=" + size + ":force_original_aspect_ratio=decrease:force_divisible_by=2," +
			"pad=" + size + ":(ow-iw)/2:(oh-ih)/2:color=gray,format=yuv420p",
		// VP8 at realtime speed on one thread: the recording must not
		// take the machine from the browser it records.
		"-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-threads", "1",
		"-b:v", "1M", "-crf", "10", "-qmin", "0", "-qmax", "50",
		"-fs", strconv.FormatInt(maxBytes-min(16<<10, maxBytes/8), 10),
		// A cluster a second, written out at once, so the file (and its
		// size, which the byte limit watches) grows steadily.
		"-cluster_time_limit", "1000", "-flush_packets", "1",
		"-f", "webm", "-n", out,
	}
	r, w2, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	e := &encoder{in: w2, exited: make(chan struct{})}
	e.cmd = exec.Command(bin, args...)
	e.cmd.Stdin = r
	e.cmd.Stderr = &e.log
	e.cmd.Dir = filepath.Dir(out)
	if err := e.cmd.Start(); err != nil {
		r.Close()
		w2.Close()
		return nil, err
	}
	r.Close() // ffmpeg has its own copy
	go func() {
		e.err = e.cmd.Wait()
		close(e.exited)
	}()
	return e, nil
}

// write gives ffmpeg one picture.
func (e *encoder) write(jpeg []byte) error {
	if err := e.in.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return err
	}
	if _, err := e.in.Write(jpeg); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return errStall
		}
		return e.exitErrOr(err)
	}
	return nil
}

// exitErrOr explains a failed write by ffmpeg's exit when it has exited.
func (e *encoder) exitErrOr(err error) error {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-e.exited:
		return e.exitErr()
	case <-t.C:
		return err
	}
}

// exitErr says how ffmpeg ended before its input did. Call after exited.
func (e *encoder) exitErr() error {
	msg := e.log.String()
	if e.err == nil {
		return errors.New("ffmpeg stopped taking pictures " + msg)
	}
	return fmt.Errorf("ffmpeg: %w %s", e.err, msg)
}

// finish ends ffmpeg's input, so it writes the rest of the file, and
// waits for it to exit: up to timeout, then it is killed.
func (e *encoder) finish(timeout time.Duration) error {
	e.in.Close()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-e.exited:
		if e.err != nil {
			return e.exitErr()
		}
		return nil
	case <-t.C:
		e.kill()
		return fmt.Errorf("ffmpeg did not finish the file within %v", timeout)
	}
}

// kill ends ffmpeg at once (by its process id) and waits, bounded, for it
// to be gone.
func (e *encoder) kill() {
	e.in.Close()
	_ = e.cmd.Process.Kill()
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-e.exited:
	case <-t.C:
	}
}

// cpu is the CPU time ffmpeg used, once it has exited.
func (e *encoder) cpu() time.Duration {
	select {
	case <-e.exited:
	default:
		return 0
	}
	if s := e.cmd.ProcessState; s != nil {
		return s.UserTime() + s.SystemTime()
	}
	return 0
}

// tail keeps the last few hundred bytes written to it (ffmpeg's errors).
type tail struct {
	mu sync.Mutex // guards b: exec's copying goroutine writes it
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if n := len(t.b) - 512; n > 0 {
		t.b = t.b[n:]
	}
	return len(p), nil
}

// String is what ffmpeg said, on one line, in parentheses ("" for
// nothing).
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.Join(strings.Fields(string(t.b)), " ")
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}
