// Command load measures what one loupe daemon holds: N sessions × M tabs
// × K concurrent clients taking snapshots and clicking, against browsers
// the daemon launches and, with -grid, against browsers from a Selenium
// Grid; and the operation ledger's write rate on SQLite and, with
// -ledger, on PostgreSQL. It prints markdown tables (throughput, p50/p99
// latency of snapshot and click, memory per tab, ledger writes per
// second) and with -svg draws them as plots, so that docs/scaling.md's
// figures are redrawn with every measurement. Every run is bounded: each
// point lasts -duration, each operation 30 s, the whole run -deadline.
//
//	go run ./cmd/load -loupe bin/loupe -sessions 2 -tabs 1,2,4 -clients 1,2,4,8 -svg docs/scaling
//	scripts/load -small -start-postgres    # what make test runs
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/loupe-dev/loupe/internal/pgtest"
)

//go:embed page.html
var page []byte

type config struct {
	loupe         string
	sessions      int
	tabs, clients []int
	duration      time.Duration
	deadline      time.Duration
	grid, ledger  string
	startPostgres bool
	ledgerWrites  int
	ledgerWriters []int
	svgDir        string
	now           time.Time
}

func main() {
	cfg, err := parseFlags(flag.CommandLine, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.deadline)
	defer cancel()
	if err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func parseFlags(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	var tabs, clients, writers string
	var small bool
	fs.StringVar(&c.loupe, "loupe", "bin/loupe", "the loupe binary")
	fs.IntVar(&c.sessions, "sessions", 1, "sessions (one browser each)")
	fs.StringVar(&tabs, "tabs", "1,2,4", "tabs per session, a point for each")
	fs.StringVar(&clients, "clients", "1,2,4", "concurrent clients, a point for each")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "how long each point drives")
	fs.DurationVar(&c.deadline, "deadline", 15*time.Minute, "bound of the whole run")
	fs.StringVar(&c.grid, "grid", "", "also drive browsers from this Selenium Grid (http://host:4444)")
	fs.StringVar(&c.ledger, "ledger", "", "also measure this PostgreSQL ledger (postgres://…)")
	fs.BoolVar(&c.startPostgres, "start-postgres", false, "start a throwaway PostgreSQL server (Debian's postgresql) for -ledger")
	fs.IntVar(&c.ledgerWrites, "ledger-writes", 1000, "reserve+settle pairs per ledger point")
	fs.StringVar(&writers, "ledger-writers", "1,4,16", "concurrent ledger writers, a point for each")
	fs.StringVar(&c.svgDir, "svg", "", "draw the plots into this directory")
	fs.BoolVar(&small, "small", false, "the size make test runs: 1 session, 2 tabs, 1 and 2 clients, 2 s a point, 200 ledger writes")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if small {
		c.sessions, tabs, clients, c.duration, c.ledgerWrites, writers = 1, "2", "1,2", 2*time.Second, 200, "1,4"
	}
	var err error
	if c.tabs, err = ints("tabs", tabs, 64); err != nil {
		return c, err
	}
	if c.clients, err = ints("clients", clients, 256); err != nil {
		return c, err
	}
	if c.ledgerWriters, err = ints("ledger-writers", writers, 256); err != nil {
		return c, err
	}
	switch {
	case c.sessions < 1 || c.sessions > 64:
		return c, fmt.Errorf("-sessions %d: want 1 to 64", c.sessions)
	case c.duration <= 0 || c.deadline <= 0 || c.ledgerWrites < 1:
		return c, errors.New("-duration, -deadline and -ledger-writes must be positive")
	case c.ledger != "" && c.startPostgres:
		return c, errors.New("give -ledger or -start-postgres, not both")
	case c.ledger != "" && !strings.HasPrefix(c.ledger, "postgres://") && !strings.HasPrefix(c.ledger, "postgresql://"):
		return c, fmt.Errorf("-ledger: want a postgres:// URL")
	}
	c.now = time.Now().UTC()
	return c, nil
}

// ints parses a comma-separated list of counts from 1 to most, ascending.
func ints(name, s string, most int) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > most || (len(out) > 0 && n <= out[len(out)-1]) {
			return nil, fmt.Errorf("-%s %q: want ascending counts from 1 to %d, comma-separated", name, s, most)
		}
		out = append(out, n)
	}
	return out, nil
}

// target is where the daemon's browsers come from.
type target struct {
	name string
	env  []string
}

// browserRun is one target's points.
type browserRun struct {
	target  string
	memory  []memPoint
	results []result
}

type memPoint struct {
	tabs int   // in all sessions
	pss  int64 // of the daemon and its browsers
}

func run(ctx context.Context, c config, out io.Writer) error {
	if c.startPostgres {
		pg, err := pgtest.Start(ctx)
		if err != nil {
			return err
		}
		defer pg.Stop()
		if c.ledger, err = pg.NewDatabase(ctx); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"

	targets := []target{{name: "local"}}
	if c.grid != "" {
		targets = append(targets, target{name: "grid", env: []string{"LOUPE_GRID=" + c.grid}})
	}
	var runs []browserRun
	for _, t := range targets {
		r, err := driveTarget(ctx, c, t, url)
		if err != nil {
			return fmt.Errorf("%s browsers: %w", t.name, err)
		}
		runs = append(runs, r)
	}
	stores := []target{{name: "sqlite"}}
	if c.ledger != "" {
		stores = append(stores, target{name: "postgres", env: []string{c.ledger}})
	}
	var ledgers []ledgerResult
	for _, s := range stores {
		dsn := ""
		if len(s.env) > 0 {
			dsn = s.env[0]
		}
		for _, w := range c.ledgerWriters {
			r, err := ledgerRate(ctx, s.name, dsn, w, c.ledgerWrites)
			if err != nil {
				return err
			}
			ledgers = append(ledgers, r)
		}
	}
	report(out, c, runs, ledgers)
	if c.svgDir != "" {
		if err := drawAll(c.svgDir, runs, ledgers); err != nil {
			return err
		}
	}
	// Every operation has 30 s: one that failed under this load is a
	// finding, not noise, and the run says so by its exit.
	failed := 0
	for _, r := range runs {
		for _, x := range r.results {
			failed += x.Errors
		}
	}
	for _, l := range ledgers {
		failed += l.ErrorsSum
	}
	if failed > 0 {
		return fmt.Errorf("%d operations failed (the tables above name the first of each point)", failed)
	}
	return nil
}

// driveTarget starts a daemon for the target and measures every point.
func driveTarget(ctx context.Context, c config, t target, url string) (browserRun, error) {
	env := t.env
	if c.ledger != "" {
		env = append(env, "LOUPE_LEDGER="+c.ledger)
	}
	d, err := startDaemon(ctx, c.loupe, env)
	if err != nil {
		return browserRun{}, err
	}
	defer d.stop()
	r := browserRun{target: t.name}
	var tabs []tab
	for _, n := range c.tabs {
		if tabs, err = openTabs(ctx, d, tabs, c.sessions, n, url); err != nil {
			return r, err
		}
		if t.name == "local" { // a Grid's browsers are not the daemon's processes
			r.memory = append(r.memory, memPoint{tabs: len(tabs), pss: treePSS(d.pid)})
		}
		for _, k := range c.clients {
			res := drive(ctx, d, tabs, k, c.duration)
			res.Sessions, res.Tabs = c.sessions, n
			r.results = append(r.results, res)
			if ctx.Err() != nil {
				return r, fmt.Errorf("the run's deadline passed: %w", ctx.Err())
			}
		}
	}
	return r, nil
}

func report(w io.Writer, c config, runs []browserRun, ledgers []ledgerResult) {
	fmt.Fprintf(w, "## loupe load, %s (%d CPUs, %s each point)\n\n", c.now.Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), c.duration)
	fmt.Fprintln(w, "| browsers | sessions × tabs | clients | ops/s | snapshot p50 / p99 ms | click p50 / p99 ms | errors |")
	fmt.Fprintln(w, "| --- | --: | --: | --: | --: | --: | --: |")
	for _, r := range runs {
		for _, x := range r.results {
			errs := strconv.Itoa(x.Errors)
			if x.FirstError != "" {
				errs += " (" + firstLine(x.FirstError, 400) + ")"
			}
			fmt.Fprintf(w, "| %s | %d × %d | %d | %.1f | %.1f / %.1f | %.1f / %.1f | %s |\n", r.target, x.Sessions, x.Tabs, x.Clients, x.OpsPerSec(),
				ms(x.Snapshots.quantile(0.5)), ms(x.Snapshots.quantile(0.99)), ms(x.Clicks.quantile(0.5)), ms(x.Clicks.quantile(0.99)), errs)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| tabs in all | daemon + browsers PSS MB | MB per tab | MB per added tab |")
	fmt.Fprintln(w, "| --: | --: | --: | --: |")
	for _, r := range runs {
		for i, m := range r.memory {
			added := "—"
			if i > 0 {
				p := r.memory[i-1]
				added = fmt.Sprintf("%.1f", mb(m.pss-p.pss)/float64(m.tabs-p.tabs))
			}
			fmt.Fprintf(w, "| %d | %.1f | %.1f | %s |\n", m.tabs, mb(m.pss), mb(m.pss)/float64(m.tabs), added)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| ledger | writers | reserve+settle pairs/s | pair p50 / p99 ms | errors |")
	fmt.Fprintln(w, "| --- | --: | --: | --: | --: |")
	for _, l := range ledgers {
		fmt.Fprintf(w, "| %s | %d | %.0f | %.2f / %.2f | %d |\n", l.Store, l.Writers, l.PairsPerSec(), ms(l.Pairs.quantile(0.5)), ms(l.Pairs.quantile(0.99)), l.ErrorsSum)
	}
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// drawAll writes the plots: throughput and latency against clients (at
// the most tabs), memory against tabs, and the ledger's rate against
// writers.
func drawAll(dir string, runs []browserRun, ledgers []ledgerResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tput := plot{Title: "Throughput (snapshot + click) by concurrent clients", XLabel: "concurrent clients", YLabel: "operations per second"}
	lat := plot{Title: "Latency by concurrent clients", XLabel: "concurrent clients", YLabel: "ms"}
	mem := plot{Title: "Memory: daemon and browsers (PSS)", XLabel: "tabs open", YLabel: "MB"}
	led := plot{Title: "Ledger write rate", XLabel: "concurrent writers", YLabel: "reserve+settle pairs per second"}
	for _, r := range runs {
		byTabs := map[int][]point{}
		var order []int
		snap50, snap99, click50, click99 := series{Name: r.target + " snapshot p50"}, series{Name: r.target + " snapshot p99"}, series{Name: r.target + " click p50"}, series{Name: r.target + " click p99"}
		most := 0
		for _, x := range r.results {
			most = max(most, x.Tabs)
		}
		for _, x := range r.results {
			if _, ok := byTabs[x.Tabs]; !ok {
				order = append(order, x.Tabs)
			}
			byTabs[x.Tabs] = append(byTabs[x.Tabs], point{float64(x.Clients), x.OpsPerSec()})
			if x.Tabs == most {
				k := float64(x.Clients)
				snap50.Points = append(snap50.Points, point{k, ms(x.Snapshots.quantile(0.5))})
				snap99.Points = append(snap99.Points, point{k, ms(x.Snapshots.quantile(0.99))})
				click50.Points = append(click50.Points, point{k, ms(x.Clicks.quantile(0.5))})
				click99.Points = append(click99.Points, point{k, ms(x.Clicks.quantile(0.99))})
			}
		}
		for _, n := range order {
			tput.Series = append(tput.Series, series{Name: fmt.Sprintf("%s, %d tabs/session", r.target, n), Points: byTabs[n]})
		}
		lat.Series = append(lat.Series, snap50, snap99, click50, click99)
		var m series
		m.Name = r.target
		for _, p := range r.memory {
			m.Points = append(m.Points, point{float64(p.tabs), mb(p.pss)})
		}
		if len(m.Points) > 0 {
			mem.Series = append(mem.Series, m)
		}
	}
	byStore := map[string]int{} // index in led.Series
	for _, l := range ledgers {
		i, ok := byStore[l.Store]
		if !ok {
			i = len(led.Series)
			byStore[l.Store] = i
			led.Series = append(led.Series, series{Name: l.Store})
		}
		led.Series[i].Points = append(led.Series[i].Points, point{float64(l.Writers), l.PairsPerSec()})
	}
	for name, p := range map[string]plot{"throughput.svg": tput, "latency.svg": lat, "memory.svg": mem, "ledger.svg": led} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		err = p.writeSVG(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
