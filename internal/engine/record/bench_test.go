package record_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/record"
)

// BenchmarkRecordCPU measures what a recording costs, in CPU
// milliseconds per second recorded, on a still page and on a page that
// moves all the time: loupe's side (this process: screencast frames
// decoded, padded, written), ffmpeg's (the child, its own rusage), and
// the browser's (its whole process tree, from /proc), each beside the
// same page unrecorded. Run alone: go test -run '^$' -bench RecordCPU
// -benchtime 1x ./internal/engine/record/
func BenchmarkRecordCPU(b *testing.B) {
	needFFmpeg(b)
	for _, page := range []string{"still.html", "moving.html"} {
		b.Run(strings.TrimSuffix(page, ".html"), func(b *testing.B) {
			const window = 5 * time.Second
			tab := openPage(b, page)
			pid := tab.Browser().PID()
			measure(b, pid, 2*time.Second, func() {}) // the page's load settles
			base := measure(b, pid, window, func() {})
			var rec cpu
			for b.Loop() {
				var r *record.Recording
				rec = rec.add(measure(b, pid, window, func() { r = startRec(b, tab) }, func() {
					res, err := r.Stop(ctxT(b))
					if err != nil || !res.Kept {
						b.Fatalf("%+v %v", res, err)
					}
				}))
				rec.ffmpeg += record.EncoderCPU(r)
			}
			n := float64(b.N) * window.Seconds()
			b.ReportMetric(ms(base.self)/window.Seconds(), "idle-loupe-ms/s")
			b.ReportMetric(ms(base.browser)/window.Seconds(), "idle-browser-ms/s")
			b.ReportMetric(ms(rec.self)/n, "loupe-ms/s")
			b.ReportMetric(ms(rec.ffmpeg)/n, "ffmpeg-ms/s")
			b.ReportMetric(ms(rec.browser)/n, "browser-ms/s")
		})
	}
}

func startRec(b *testing.B, tab *engine.Surface) *record.Recording {
	r, err := record.Start(ctxT(b), tab, options(b))
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// cpu is CPU time by whom.
type cpu struct{ self, ffmpeg, browser time.Duration }

func (c cpu) add(d cpu) cpu {
	return cpu{c.self + d.self, c.ffmpeg + d.ffmpeg, c.browser + d.browser}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measure is the CPU this process and the browser use from before
// start to after stop (if any), window apart.
func measure(b *testing.B, pid int, window time.Duration, start func(), stop ...func()) cpu {
	b.Helper()
	s0, b0 := selfCPU(b), treeCPU(pid)
	start()
	t := time.NewTimer(window)
	<-t.C
	for _, f := range stop {
		f()
	}
	return cpu{self: selfCPU(b) - s0, browser: treeCPU(pid) - b0}
}

func selfCPU(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// treeCPU is the CPU time of a process and all its descendants now
// alive, from /proc (in clock ticks of 10 ms).
func treeCPU(root int) time.Duration {
	parent, ticks := map[int]int{}, map[int]int64{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid … utime(14) stime(15): comm may hold
		// spaces, so count from the last ')'.
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks[pid] = ut + st
	}
	var total int64
	for pid, t := range ticks {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				total += t
				break
			}
		}
	}
	return time.Duration(total) * 10 * time.Millisecond
}
