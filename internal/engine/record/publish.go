package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// maxRenames bounds the search for a free "name (N).webm".
const maxRenames = 1000

// fileName is the name the recording is published as: the given one (a
// plain name; .webm is added when it has no such extension) or
// recording-<time>.webm.
func fileName(name string, now time.Time) (string, error) {
	if name == "" {
		return "recording-" + now.Format("20060102-150405") + ".webm", nil
	}
	if name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", apitype.Errorf(apitype.BadInput, "a recording's name is a plain file name in the session's files directory, like demo.webm, not %q", name)
	}
	if !strings.EqualFold(filepath.Ext(name), ".webm") {
		name += ".webm"
	}
	return name, nil
}

// stage is where ffmpeg writes the file until it is checked: a directory
// of its own beside the files directory (on the same file system, so
// publishing is a link, not a copy), never inside it, so nobody sees a
// half-written file there.
type stage struct {
	dir  string
	file string
}

func newStage(filesDir, name string) (*stage, error) {
	if err := os.MkdirAll(filesDir, 0o700); err != nil {
		return nil, apitype.Wrap(apitype.FileError, err, "making the files directory for the recording: %v", err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(filesDir), ".loupe-record-")
	if err != nil {
		// A files directory whose parent is not ours to write: stage in
		// the temporary directory and copy at the end.
		if dir, err = os.MkdirTemp("", "loupe-record-"); err != nil {
			return nil, apitype.Wrap(apitype.FileError, err, "making a staging directory for the recording: %v", err)
		}
	}
	return &stage{dir: dir, file: filepath.Join(dir, "recording.webm")}, nil
}

// size is the staged file's size so far.
func (s *stage) size() int64 {
	fi, err := os.Stat(s.file)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func (s *stage) remove() { _ = os.RemoveAll(s.dir) }

// videoInfo is what ffprobe found in a file.
type videoInfo struct {
	codec         string
	width, height int
	packets       int
	duration      time.Duration
}

func (v videoInfo) String() string {
	return fmt.Sprintf("%s video %d×%d, %d frames, %.2f s", strings.ToUpper(v.codec), v.width, v.height, v.packets, v.duration.Seconds())
}

// probe checks that a file decodes as a video: ffprobe must read it to
// the end and report a video stream with frames and a duration.
func probe(ctx context.Context, ffprobe, file string) (videoInfo, error) {
	cmd := exec.CommandContext(ctx, ffprobe, "-v", "error", "-count_packets", "-select_streams", "v:0",
		"-show_entries", "stream=codec_type,codec_name,width,height,nb_read_packets:format=duration",
		"-of", "json", file)
	cmd.WaitDelay = time.Second
	var errOut tail
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return videoInfo{}, fmt.Errorf("ffprobe: %w %s", err, errOut.String())
	}
	var r struct {
		Streams []struct {
			CodecType string `json:"codec_type"`
			CodecName string `json:"codec_name"`
			Width     int    `json:"width"`
			Height    int    `json:"height"`
			Packets   string `json:"nb_read_packets"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return videoInfo{}, fmt.Errorf("ffprobe's report: %w", err)
	}
	if len(r.Streams) == 0 || r.Streams[0].CodecType != "video" {
		return videoInfo{}, errors.New("ffprobe finds no video stream " + errOut.String())
	}
	s := r.Streams[0]
	v := videoInfo{codec: s.CodecName, width: s.Width, height: s.Height}
	v.packets, _ = strconv.Atoi(s.Packets)
	if v.packets == 0 {
		return v, errors.New("ffprobe finds no frame in the video stream " + errOut.String())
	}
	d, err := strconv.ParseFloat(r.Format.Duration, 64)
	if err != nil || d <= 0 {
		return v, fmt.Errorf("ffprobe finds no duration (%q) %s", r.Format.Duration, errOut.String())
	}
	v.duration = time.Duration(d * float64(time.Second))
	return v, nil
}

// fit cuts the end off a finished file over maxBytes, by copying its
// start (no new encoding) to a file of a duration that fits, and puts it
// in the file's place: a WebM cannot be cut by bytes, but a copy of its
// first seconds is a whole file. The duration kept is the file's share
// that fits, less room for the index; a copy still over (pictures differ
// in size) is cut shorter again, a few times at most.
func fit(ctx context.Context, ffmpeg, ffprobe, file string, info videoInfo, size, maxBytes int64) (videoInfo, error) {
	const room = 8 << 10 // the headers and the index a copy writes again
	out := file + ".fit.webm"
	defer os.Remove(out)
	keep := info.duration
	for range 4 {
		keep = time.Duration(float64(keep) * float64(maxBytes-room) / float64(size))
		if keep < 100*time.Millisecond {
			break
		}
		cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-loglevel", "error", "-nostats",
			"-i", file, "-map", "0:v:0", "-c", "copy", "-t", strconv.FormatFloat(keep.Seconds(), 'f', 3, 64), "-f", "webm", "-y", out)
		cmd.WaitDelay = time.Second
		var errOut tail
		cmd.Stderr = &errOut
		if err := cmd.Run(); err != nil {
			return videoInfo{}, fmt.Errorf("ffmpeg: %w %s", err, errOut.String())
		}
		fi, err := os.Stat(out)
		if err != nil {
			return videoInfo{}, err
		}
		if size = fi.Size(); size > maxBytes {
			continue
		}
		fitted, err := probe(ctx, ffprobe, out)
		if err != nil {
			return videoInfo{}, err
		}
		return fitted, os.Rename(out, file)
	}
	return videoInfo{}, errors.New("no start of it short enough to fit")
}

// publishFile puts the staged file into dir as name, or "name (N).webm"
// when that is taken: never overwriting, never through a symlink, mode
// 0600. It links the file in (atomic, and it fails when the name exists)
// and copies it when a link cannot be made (another file system).
func publishFile(staged, dir, name string) (string, error) {
	if err := os.Chmod(staged, 0o600); err != nil {
		return "", err
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	link := true
	for i := 0; i <= maxRenames; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(dir, n)
		var err error
		if link {
			err = os.Link(staged, p)
			if err != nil && !errors.Is(err, fs.ErrExist) {
				link = false
			}
		}
		if !link {
			err = copyNew(staged, p)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return p, nil
	}
	return "", fmt.Errorf("no free name like %s in %s", name, dir)
}

// copyNew copies src to a new file dst (O_EXCL, no symlink followed); a
// failed copy removes what it began.
func copyNew(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}
