package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/client"
	"github.com/loupe-dev/loupe/internal/homedir"
)

// daemon is a loupe daemon of the load run's own, in a throw-away home.
type daemon struct {
	bin, home string
	env       []string
	socket    string
	build     string
	pid       int
}

// startDaemon starts a daemon in a new home; extra is added to its
// environment (LOUPE_LEDGER, LOUPE_GRID).
func startDaemon(ctx context.Context, bin string, extra []string) (*daemon, error) {
	home, err := os.MkdirTemp("", "loupe-load-")
	if err != nil {
		return nil, err
	}
	d := &daemon{bin: bin, home: home, socket: homedir.SocketPath(home)}
	d.env = append(append(os.Environ(), "LOUPE_HOME="+home), extra...)
	if out, err := d.loupe(ctx, "daemon", "start"); err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("starting the daemon: %w: %s", err, out)
	}
	st, err := client.New(d.socket, "").Status(ctx)
	if err != nil {
		d.stop()
		return nil, fmt.Errorf("the daemon's status: %w", err)
	}
	d.build, d.pid = st.Build, st.PID
	return d, nil
}

func (d *daemon) loupe(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, d.bin, args...)
	cmd.Env = d.env
	return cmd.CombinedOutput()
}

// stop stops the daemon (and with it its browsers) and removes its home.
func (d *daemon) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = d.loupe(ctx, "daemon", "stop")
	os.RemoveAll(d.home)
}

// client is a client of the daemon's own: each worker has one, so that
// their requests do not queue on one connection.
func (d *daemon) client() *client.Client { return client.New(d.socket, d.build) }

// tab is one tab of the load: a session and the client id whose current
// tab it is (the tab's opener; each client keeps its own current tab).
type tab struct{ session, client string }

// opTimeout bounds each operation of the load; a slower one counts as an
// error.
const opTimeout = 30 * time.Second

func call(ctx context.Context, c *client.Client, t tab, op string, in any) (json.RawMessage, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	resp, err := c.Do(ctx, op, apitype.OpRequest{Session: t.session, Client: t.client, Input: raw})
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// openTabs makes sure each of the sessions has n load tabs at url and
// returns them all, in session order. A session's browser comes from
// the Grid when the daemon has LOUPE_GRID.
func openTabs(ctx context.Context, d *daemon, have []tab, sessions, n int, url string) ([]tab, error) {
	c := d.client()
	var all []tab
	for s := range sessions {
		for i := range n {
			t := tab{session: fmt.Sprintf("load%d", s), client: fmt.Sprintf("load%d-%d", s, i)}
			all = append(all, t)
			if contains(have, t) {
				continue
			}
			if _, err := call(ctx, c, t, "tab new", map[string]string{"url": url}); err != nil {
				return nil, fmt.Errorf("opening tab %d of session %s: %w", i, t.session, err)
			}
		}
	}
	return all, nil
}

func contains(ts []tab, t tab) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// addButton finds the ref of the page's counter button in a snapshot.
var addButton = regexp.MustCompile(`button "Add one"[^\n]*\[ref=(e\d+)\]`)

// result is what one point of the load measured.
type result struct {
	Sessions, Tabs, Clients int
	Duration                time.Duration
	Snapshots, Clicks       latencies
	Errors                  int
	FirstError              string
}

// OpsPerSec is the operations (snapshots and clicks) completed per second.
func (r result) OpsPerSec() float64 {
	return float64(len(r.Snapshots)+len(r.Clicks)) / r.Duration.Seconds()
}

// drive runs k clients for dur over the tabs, client i on tab i mod
// len(tabs) (clients beyond the tabs share one, and its writes take
// turns): each takes a snapshot and clicks the counter by the ref it
// read, again and again. Every operation is timed from request to reply.
func drive(ctx context.Context, d *daemon, tabs []tab, k int, dur time.Duration) result {
	var (
		mu  sync.Mutex
		res = result{Clients: k}
		wg  sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if res.Errors++; res.FirstError == "" {
			res.FirstError = err.Error()
		}
	}
	start := time.Now()
	end := start.Add(dur)
	for i := range k {
		t, c := tabs[i%len(tabs)], d.client()
		wg.Go(func() {
			var snaps, clicks latencies
			defer func() {
				mu.Lock()
				res.Snapshots = append(res.Snapshots, snaps...)
				res.Clicks = append(res.Clicks, clicks...)
				mu.Unlock()
			}()
			for time.Now().Before(end) && ctx.Err() == nil {
				t0 := time.Now()
				raw, err := call(ctx, c, t, "snapshot", struct{}{})
				if err != nil {
					fail(err)
					continue
				}
				snaps = append(snaps, time.Since(t0))
				var s struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(raw, &s); err != nil {
					fail(err)
					continue
				}
				m := addButton.FindStringSubmatch(s.Text)
				if m == nil {
					fail(fmt.Errorf("no Add one button in the snapshot: %q", s.Text[:min(len(s.Text), 300)]))
					continue
				}
				t0 = time.Now()
				if _, err := call(ctx, c, t, "click", map[string]string{"ref": m[1]}); err != nil {
					fail(err)
					continue
				}
				clicks = append(clicks, time.Since(t0))
			}
		})
	}
	wg.Wait()
	res.Duration = time.Since(start)
	return res
}
