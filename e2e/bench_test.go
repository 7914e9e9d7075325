package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/chromium"
	"github.com/loupe-dev/loupe/internal/testpages"
)

// Benchmarks of the whole product, run with
//
//	go test -run '^$' -bench . -benchtime 5x ./e2e/
//
// They report medians as custom metrics (median-ms) besides Go's mean
// ns/op, since this machine is noisy.

func medianMS(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkColdStart is process start to the first snapshot of a small
// page: `loupe open URL` (which starts the daemon and Chromium) then
// `loupe snapshot`, with a fresh LOUPE_HOME each time.
func BenchmarkColdStart(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	url := srv.Page("basic.html")
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		e := &env{t: &testing.T{}, home: mustTemp(b)}
		start := time.Now()
		if r := e.run("open", url); r.code != 0 {
			b.Fatalf("open: %s", r.stderr)
		}
		if r := e.run("snapshot"); r.code != 0 {
			b.Fatalf("snapshot: %s", r.stderr)
		}
		ds = append(ds, time.Since(start))
		b.StopTimer()
		e.run("daemon", "stop")
		os.RemoveAll(e.home)
		b.StartTimer()
	}
	b.ReportMetric(medianMS(ds), "median-ms")
}

// BenchmarkColdStartBare is the floor for BenchmarkColdStart: Chromium
// launched with the same flags, one page attached, navigated, its load
// event awaited, and one Runtime.evaluate — no loupe in between.
func BenchmarkColdStartBare(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	url := srv.Page("basic.html")
	bin, err := chromium.Find(os.Getenv("LOUPE_CHROMIUM"), true)
	if err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		dir := mustTemp(b)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start := time.Now()
		br, err := chromium.Launch(ctx, chromium.LaunchOptions{Binary: bin, ProfileDir: filepath.Join(dir, "s", "profile")})
		if err != nil {
			b.Fatal(err)
		}
		if err := bareNavigate(ctx, br, url); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		b.StopTimer()
		br.Stop(ctx)
		cancel()
		os.RemoveAll(dir)
		b.StartTimer()
	}
	b.ReportMetric(medianMS(ds), "median-ms")
}

// BenchmarkEvalRoundTrip is `loupe eval 1` through the daemon, on a warm
// session: CLI process start, socket, executor, CDP and back.
func BenchmarkEvalRoundTrip(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	e := &env{t: &testing.T{}, home: mustTemp(b)}
	defer func() { e.run("daemon", "stop"); os.RemoveAll(e.home) }()
	if r := e.run("open", srv.Page("basic.html")); r.code != 0 {
		b.Fatal(r.stderr)
	}
	e.run("eval", "1")
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if r := e.run("eval", "1"); r.code != 0 || r.stdout != "1\n" {
			b.Fatalf("eval 1: %+v", r)
		}
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(medianMS(ds), "median-ms")
}

// BenchmarkDaemonRSS reports the daemon's resident memory without a
// browser: freshly started, and again after a session ran and closed.
func BenchmarkDaemonRSS(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	for i := 0; i < b.N; i++ {
		e := &env{t: &testing.T{}, home: mustTemp(b)}
		e.run("daemon", "start")
		pid := daemonPID(b, e)
		fresh := rssKB(b, pid)
		e.run("open", srv.Page("large.html"))
		e.run("snapshot")
		e.run("close")
		after := rssKB(b, pid)
		e.run("daemon", "stop")
		os.RemoveAll(e.home)
		b.ReportMetric(float64(fresh)/1024, "fresh-MB")
		b.ReportMetric(float64(after)/1024, "after-session-MB")
	}
}

func mustTemp(b *testing.B) string {
	d, err := os.MkdirTemp("", "lp-b-")
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func daemonPID(b *testing.B, e *env) int {
	r := e.run("--json", "daemon", "status")
	i := strings.Index(r.stdout, `"pid":`)
	if i < 0 {
		b.Fatalf("status: %s", r.stdout)
	}
	rest := r.stdout[i+6:]
	j := strings.IndexAny(rest, ",}")
	pid, err := strconv.Atoi(rest[:j])
	if err != nil {
		b.Fatal(err)
	}
	return pid
}

func rssKB(b *testing.B, pid int) int {
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(st), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkCLIClick is `loupe click REF` through the daemon on a warm
// session (a button that changes nothing): what a shell agent pays a
// click, process start included.
func BenchmarkCLIClick(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	e := &env{t: &testing.T{}, home: mustTemp(b)}
	defer func() { e.run("daemon", "stop"); os.RemoveAll(e.home) }()
	if r := e.run("open", srv.Page("basic.html")); r.code != 0 {
		b.Fatal(r.stderr)
	}
	snap := e.run("snapshot").stdout
	ref := ""
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, "- button") {
			if i := strings.Index(l, "[ref="); i >= 0 {
				ref = strings.TrimSuffix(l[i+5:], "]")
				if j := strings.Index(ref, "]"); j >= 0 {
					ref = ref[:j]
				}
				break
			}
		}
	}
	if ref == "" {
		b.Fatalf("no button on the page:\n%s", snap)
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if r := e.run("click", ref); r.code != 0 {
			b.Fatalf("click: %+v", r)
		}
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(medianMS(ds), "median-ms")
}

// BenchmarkSnapshotGrep: on the large page, a whole snapshot against
// snapshot --grep for one row, through the CLI on a warm session (each
// a walk the page agent reuses): time and characters printed.
func BenchmarkSnapshotGrep(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	e := &env{t: &testing.T{}, home: mustTemp(b)}
	defer func() { e.run("daemon", "stop"); os.RemoveAll(e.home) }()
	if r := e.run("open", srv.Page("large.html")); r.code != 0 {
		b.Fatal(r.stderr)
	}
	for _, c := range []struct {
		name string
		args []string
	}{{"full", []string{"snapshot"}}, {"grep", []string{"snapshot", "--grep", "MK-LARGE-BOTTOM"}}} {
		b.Run(c.name, func(b *testing.B) {
			e.run(c.args...)
			var ds []time.Duration
			chars := 0
			for i := 0; i < b.N; i++ {
				start := time.Now()
				r := e.run(c.args...)
				if r.code != 0 {
					b.Fatalf("%v: %s", c.args, r.stderr)
				}
				ds = append(ds, time.Since(start))
				chars = len(r.stdout)
			}
			b.ReportMetric(medianMS(ds), "median-ms")
			b.ReportMetric(float64(chars), "chars")
		})
	}
}

// BenchmarkBrokerOverhead is what the broker path adds to an MCP call: a
// snapshot and a click on the frames page through `loupe mcp --daemon`
// (the local path) and through `loupe mcp --broker` (a remote agent's,
// over loopback HTTP to the broker in the same daemon), alternately, each
// client in a browser of its own. Reported: the medians of each and their
// difference (added-…-ms).
func BenchmarkBrokerOverhead(b *testing.B) {
	srv := testpages.Start(b, "127.0.0.1")
	e := &env{t: &testing.T{}, home: mustTemp(b)}
	r := &env{t: &testing.T{}, home: mustTemp(b)}
	defer func() { e.run("daemon", "stop"); os.RemoveAll(e.home); os.RemoveAll(r.home) }()
	var served struct{ URL string }
	e.okJSON(&served, "broker", "serve")
	var reg struct{ Token string }
	e.okJSON(&reg, "broker", "register", "--host", "bench")
	r.extra = []string{"LOUPE_BROKER_TOKEN=" + reg.Token}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	connect := func(e *env, args ...string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: e.command(append([]string{"mcp"}, args...)...)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return cs
	}
	// The local client in a session (a browser) of its own: two tabs of
	// one window would leave one in the background, where a page gets no
	// frames and a click waits for its bounds.
	local := connect(e, "--daemon", "--session", "local")
	defer local.Close()
	remote := connect(r, "--broker", served.URL, "--session", "bench")
	defer remote.Close()
	call := func(cs *mcp.ClientSession, name string, args map[string]any) (string, time.Duration) {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res)
		}
		var t strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				t.WriteString(tc.Text)
			}
		}
		return t.String(), d
	}
	refOf := func(snap string) string {
		m := regexp.MustCompile(`button "Go" \[ref=(e\d+)\]`).FindStringSubmatch(snap)
		if m == nil {
			b.Fatalf("no Go button:\n%s", snap)
		}
		return m[1]
	}
	snapL, _ := call(local, "browser_navigate", map[string]any{"url": srv.Page("frames/top.html")})
	snapR, _ := call(remote, "browser_navigate", map[string]any{"url": srv.Page("frames/top.html")})
	refL, refR := refOf(snapL), refOf(snapR)
	var ls, rs, lc, rc []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, d := call(local, "browser_snapshot", map[string]any{})
		ls = append(ls, d)
		_, d = call(remote, "browser_snapshot", map[string]any{})
		rs = append(rs, d)
		_, d = call(local, "browser_click", map[string]any{"ref": refL})
		lc = append(lc, d)
		_, d = call(remote, "browser_click", map[string]any{"ref": refR})
		rc = append(rc, d)
	}
	b.ReportMetric(medianMS(ls), "local-snapshot-ms")
	b.ReportMetric(medianMS(rs), "broker-snapshot-ms")
	b.ReportMetric(medianMS(rs)-medianMS(ls), "added-snapshot-ms")
	b.ReportMetric(medianMS(lc), "local-click-ms")
	b.ReportMetric(medianMS(rc), "broker-click-ms")
	b.ReportMetric(medianMS(rc)-medianMS(lc), "added-click-ms")
}
