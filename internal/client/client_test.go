package client

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// resetting listens on a socket and closes, unanswered, the first n
// connections (as a daemon that is exiting does); after them it serves
// the status when serve is true, or stops listening when it is false.
func resetting(t *testing.T, n int, serve bool) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range n {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			// Closed with the request half read: the client's read is
			// reset, as by a daemon exiting.
			_, _ = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if !serve {
			ln.Close()
			return
		}
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = json.NewEncoder(w).Encode(apitype.Status{PID: 42})
		}))
	}()
	return sock
}

// TestProbeAsksADroppingDaemonAgain: connections a daemon drops
// unanswered are asked again, until one answers or nothing listens;
// Status itself reports the first drop.
func TestProbeAsksADroppingDaemonAgain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if _, err := New(resetting(t, 1, true), "b").Status(ctx); err == nil || errors.Is(err, ErrNoDaemon) || !dropped(err) {
		t.Fatalf("Status on a dropped connection: %v, want the drop", err)
	}
	st, err := New(resetting(t, 3, true), "b").Probe(ctx)
	if err != nil || st.PID != 42 {
		t.Fatalf("Probe of a daemon that answers after three drops: %+v %v", st, err)
	}
	if _, err := New(resetting(t, 2, false), "b").Probe(ctx); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("Probe of a daemon that goes after two drops: %v, want ErrNoDaemon", err)
	}
}

// TestProbeGivesUp: a socket that keeps dropping is reported as it is,
// once probeWindow has passed.
func TestProbeGivesUp(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := New(resetting(t, 1<<30, false), "b").Probe(ctx); err == nil || errors.Is(err, ErrNoDaemon) || !dropped(err) {
		t.Fatalf("Probe of a socket that always drops: %v", err)
	}
}
