package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loupe-dev/loupe/internal/ledger"
	"github.com/loupe-dev/loupe/internal/wire"
)

// ledgerResult is the ledger's write rate with some writers at once.
type ledgerResult struct {
	Store     string
	Writers   int
	Writes    int // reserve+settle pairs
	Duration  time.Duration
	Pairs     latencies
	FirstErr  string
	ErrorsSum int
}

// PairsPerSec is the reserve+settle pairs per second: each write of an
// agent costs one pair.
func (r ledgerResult) PairsPerSec() float64 { return float64(r.Writes) / r.Duration.Seconds() }

// ledgerRate reserves and settles n writes, writers of them at a time,
// in the ledger at target (a file path, or a postgres:// URL when that
// backend is built in), as a daemon's executor does for each write: the
// reservation durable before the write would go out.
func ledgerRate(ctx context.Context, name, target string, writers, n int) (ledgerResult, error) {
	if target == "" {
		dir, err := os.MkdirTemp("", "loupe-load-ledger-")
		if err != nil {
			return ledgerResult{}, err
		}
		defer os.RemoveAll(dir)
		target = filepath.Join(dir, "ledger.db")
	}
	l, err := ledger.Open(ctx, target)
	if err != nil {
		return ledgerResult{}, fmt.Errorf("opening the %s ledger: %w", name, err)
	}
	defer l.Close()
	res := ledgerResult{Store: name, Writers: writers}
	var (
		next atomic.Int64
		mu   sync.Mutex
		wg   sync.WaitGroup
	)
	run := fmt.Sprintf("load-%d", time.Now().UnixNano()) // ids are unique forever, also across runs on one database
	start := time.Now()
	for range writers {
		wg.Go(func() {
			var mine latencies
			for {
				i := next.Add(1)
				if i > int64(n) || ctx.Err() != nil {
					break
				}
				id := fmt.Sprintf("%s-%d", run, i)
				t0 := time.Now()
				err := l.Reserve(ctx, ledger.Entry{ID: id, Session: "load", Op: "click", Action: "input", Digest: id})
				if err == nil {
					err = l.Settle(ctx, id, wire.OpExecuted, "", "")
				}
				mu.Lock()
				if err != nil {
					if res.ErrorsSum++; res.FirstErr == "" {
						res.FirstErr = err.Error()
					}
				} else {
					res.Writes++
				}
				mu.Unlock()
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			res.Pairs = append(res.Pairs, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	res.Duration = time.Since(start)
	return res, nil
}
