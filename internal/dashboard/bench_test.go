package dashboard_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/dashboard"
	"github.com/loupe-dev/loupe/internal/engine/live"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/settings"
	"github.com/loupe-dev/loupe/internal/wire"
)

// palette is the colours the timer page cycles through; a frame's colour
// says which change it shows.
const paletteSize = 24

func paletteColour(i int) (r, g, b uint8) {
	// Far apart in RGB, so JPEG noise never moves one onto another.
	return uint8(40 + (i%3)*100), uint8(40 + ((i/3)%4)*65), uint8(40 + ((i/12)%2)*180)
}

// timerPage changes the whole page's colour every 40 ms (25 changes a
// second, more than the live view's 15 frames), logging each change with
// its time.
func timerPage() string {
	var cols []string
	for i := range paletteSize {
		r, g, b := paletteColour(i)
		cols = append(cols, fmt.Sprintf("'rgb(%d,%d,%d)'", r, g, b))
	}
	return `<!doctype html><title>timer</title><body style="margin:0"><div id=d style="width:100vw;height:100vh"></div><script>
const cols = [` + strings.Join(cols, ",") + `]; window.shown = []; let i = 0;
setInterval(() => { i = (i + 1) % cols.length; d.style.background = cols[i]; window.shown.push([i, Date.now()]); }, 40);
</script>`
}

func nearest(r, g, b uint8) int {
	best, bestD := 0, 1<<30
	for i := range paletteSize {
		pr, pg, pb := paletteColour(i)
		d := sq(int(r)-int(pr)) + sq(int(g)-int(pg)) + sq(int(b)-int(pb))
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

func sq(x int) int { return x * x }

// benchDashboard is an executor with a browser at the timer page (or an
// idle one), and a dashboard signed in to.
func benchDashboard(b *testing.B, page string) (*dashboard.Server, string, *executor.Executor) {
	home := b.TempDir()
	x := executor.New(executor.Config{Home: home, Settings: settings.Open(home), Chromium: os.Getenv("LOUPE_CHROMIUM")})
	b.Cleanup(func() { _ = x.Close(context.Background()) })
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, page) }))
	b.Cleanup(srv.Close)
	in, _ := json.Marshal(map[string]string{"url": srv.URL})
	if _, err := x.Do(context.Background(), executor.Request{Op: "open", OpRequest: apitype.OpRequest{Session: "default", Input: in}}); err != nil {
		b.Fatal(err)
	}
	s, err := dashboard.Start(x, "", "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s, signIn(b, s), x
}

// liveFrames reads the live view's frames as the page gets them, for d.
func liveFrames(b *testing.B, s *dashboard.Server, cookie string, d time.Duration, each func(f live.Frame, at time.Time)) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.Addr()+"/api/live?session=default&surface_id=s1", nil)
	req.AddCookie(&http.Cookie{Name: dashboard.CookieName, Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		at := time.Now()
		var f live.Frame
		if json.Unmarshal([]byte(line), &f) == nil && len(f.JPEG) > 0 {
			each(f, at)
		}
	}
}

// BenchmarkLiveView: frames a second the dashboard's live view delivers
// of a page that changes every 40 ms, and the latency from a change (the
// page's clock) to its frame arriving at the dashboard's reader; each
// iteration watches 5 s.
//
//	go test -run '^$' -bench LiveView -benchtime 1x ./internal/dashboard/
func BenchmarkLiveView(b *testing.B) {
	s, cookie, x := benchDashboard(b, timerPage())
	for b.Loop() {
		type got struct {
			colour int
			at     time.Time
		}
		var frames []got
		start := time.Now()
		liveFrames(b, s, cookie, 5*time.Second, func(f live.Frame, at time.Time) {
			img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
			if err != nil {
				return
			}
			c := img.Bounds().Size()
			r, g, bl, _ := img.At(c.X/2, c.Y/2).RGBA()
			frames = append(frames, got{nearest(uint8(r>>8), uint8(g>>8), uint8(bl>>8)), at})
		})
		secs := time.Since(start).Seconds()
		// Every change, with its time, from the page.
		in, _ := json.Marshal(map[string]string{"expression": "JSON.stringify(window.shown)"})
		res, err := x.Do(context.Background(), executor.Request{Op: "eval", OpRequest: apitype.OpRequest{Session: "default", Input: in}})
		if err != nil {
			b.Fatal(err)
		}
		var raw string
		_ = json.Unmarshal(res.Out.(*wire.EvalOut).Value, &raw)
		var shown [][2]int64
		_ = json.Unmarshal([]byte(raw), &shown)
		var lat []float64
		for _, f := range frames[1:] { // the first frame is the page as it was
			// The frame shows the latest change to its colour before
			// it arrived (a colour comes round again after ~1 s).
			var when int64 = -1
			for _, c := range shown {
				if int(c[0]) == f.colour && c[1] <= f.at.UnixMilli() {
					when = c[1]
				}
			}
			if ms := f.at.UnixMilli() - when; when >= 0 && ms < 900 {
				lat = append(lat, float64(ms))
			}
		}
		if len(lat) == 0 {
			b.Fatalf("no frame matched a change (%d frames)", len(frames))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(len(frames))/secs, "frames/s")
		b.ReportMetric(lat[len(lat)/2], "latency-median-ms")
		b.ReportMetric(lat[len(lat)*9/10], "latency-p90-ms")
	}
}

// BenchmarkLiveIdle: the dashboard process's CPU while one viewer watches
// a tab that does not change, over 10 s per iteration.
//
//	go test -run '^$' -bench LiveIdle -benchtime 1x ./internal/dashboard/
func BenchmarkLiveIdle(b *testing.B) {
	s, cookie, _ := benchDashboard(b, `<!doctype html><title>idle</title><h1>Nothing moves here</h1>`)
	for b.Loop() {
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		start := time.Now()
		var n int
		liveFrames(b, s, cookie, 10*time.Second, func(live.Frame, time.Time) { n++ })
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
		b.ReportMetric(100*cpu.Seconds()/time.Since(start).Seconds(), "cpu-%")
		b.ReportMetric(float64(n), "frames")
	}
}
