package daemon

import (
	"sync"

	"github.com/loupe-dev/loupe/internal/dashboard"
	"github.com/loupe-dev/loupe/internal/executor"
)

// dashboards serves the dashboard operation: one dashboard at a time,
// started when a person first asks for it, moved when they ask for
// another address, closed with the daemon.
type dashboards struct {
	build string

	mu  sync.Mutex
	x   *executor.Executor
	srv *dashboard.Server
}

// Serve returns the running dashboard's address, starting it on addr (or
// moving it there: its token changes).
func (d *dashboards) Serve(addr string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv != nil && (addr == "" || addr == d.srv.Addr()) {
		return d.srv.URL(), nil
	}
	if d.srv != nil {
		_ = d.srv.Close()
		d.srv = nil
	}
	srv, err := dashboard.Start(d.x, addr, d.build)
	if err != nil {
		return "", err
	}
	d.srv = srv
	return srv.URL(), nil
}

// Close stops the dashboard, if one runs.
func (d *dashboards) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.srv != nil {
		_ = d.srv.Close()
		d.srv = nil
	}
}
