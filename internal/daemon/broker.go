package daemon

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/loupe-dev/loupe/internal/broker"
	"github.com/loupe-dev/loupe/internal/executor"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// brokers serves the broker operations: one broker listener at a time,
// started when a person first asks for it, moved when they ask for
// another address, closed with the daemon; and the hosts' tokens, in
// LOUPE_HOME/broker-hosts.json (see broker.Store), opened on first use.
type brokers struct {
	build string
	home  string

	mu    sync.Mutex
	x     *executor.Executor
	store *broker.Store
	srv   *broker.Server
}

// storeLocked opens the token store once. Caller holds b.mu.
func (b *brokers) storeLocked() (*broker.Store, error) {
	if b.store == nil {
		s, err := broker.OpenStore(filepath.Join(b.home, broker.StoreFile), nil)
		if err != nil {
			return nil, err
		}
		b.store = s
	}
	return b.store, nil
}

// Serve returns the running broker's address, starting it on addr (or
// moving it there).
func (b *brokers) Serve(addr string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.srv != nil && (addr == "" || addr == b.srv.Addr()) {
		return b.srv.URL(), nil
	}
	store, err := b.storeLocked()
	if err != nil {
		return "", err
	}
	if b.srv != nil {
		_ = b.srv.Close()
		b.srv = nil
	}
	srv, err := broker.Start(broker.Config{X: b.x, Store: store, Addr: addr, Build: b.build})
	if err != nil {
		return "", err
	}
	b.srv = srv
	return srv.URL(), nil
}

// Register mints the host's next token and ends the tasks of its older
// generations.
func (b *brokers) Register(host string) (*ops.BrokerRegisterOut, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	store, err := b.storeLocked()
	if err != nil {
		return nil, err
	}
	token, h, err := store.Register(host)
	if err != nil {
		return nil, err
	}
	ended := b.x.EndTasks(broker.HostTasks(h.Name, h.Generation))
	out := &ops.BrokerRegisterOut{BrokerHost: hostOut(h), Token: token}
	out.Ended = len(ended)
	return out, nil
}

// Revoke refuses the host's token and ends the tasks of its generations
// so far (a later registration starts afresh).
func (b *brokers) Revoke(host string) (*ops.BrokerHostsOut, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	store, err := b.storeLocked()
	if err != nil {
		return nil, err
	}
	h, err := store.Revoke(host)
	if err != nil {
		return nil, fmt.Errorf("broker revoke: %w", err)
	}
	o := hostOut(h)
	o.Ended = len(b.x.EndTasks(broker.HostTasks(h.Name, h.Generation+1)))
	return &ops.BrokerHostsOut{Hosts: []wire.BrokerHost{o}}, nil
}

// Hosts lists the hosts.
func (b *brokers) Hosts() *ops.BrokerHostsOut {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := &ops.BrokerHostsOut{Hosts: []wire.BrokerHost{}}
	store, err := b.storeLocked()
	if err != nil {
		return out
	}
	for _, h := range store.Hosts() {
		out.Hosts = append(out.Hosts, hostOut(h))
	}
	return out
}

func hostOut(h broker.Host) wire.BrokerHost {
	o := wire.BrokerHost{Host: h.Name, Generation: h.Generation, Created: h.Created}
	if !h.LastUsed.IsZero() {
		o.LastUsed = ptr(h.LastUsed)
	}
	if !h.Revoked.IsZero() {
		o.Revoked = ptr(h.Revoked)
	}
	return o
}

func ptr(t time.Time) *time.Time { return &t }

// Close stops the broker, if one runs.
func (b *brokers) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.srv != nil {
		_ = b.srv.Close()
		b.srv = nil
	}
}
