package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestDownloadProgress: while a download is in flight, downloads shows its
// bytes received of the total and events streams download.progress; the
// file's second half is sent only when the test has seen the first.
func TestDownloadProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const half = 256 << 10
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/big.bin" {
			fmt.Fprint(w, `<!doctype html><title>dl</title><a href="/big.bin" download="big.bin">Get it</a>`)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", fmt.Sprint(2*half))
		w.Write(make([]byte, half))
		w.(http.Flusher).Flush()
		select { // the second half waits for the test, at most 20 s
		case <-release:
		case <-time.After(20 * time.Second):
		}
		w.Write(make([]byte, half))
	}))
	defer srv.Close()
	defer close(release)
	e.ok("open", srv.URL+"/")
	s := startEvents(t, e, "--kind", "download.started,download.progress,download.finished")
	snap := e.ok("snapshot")
	e.ok("click", refOf(t, snap, "link", "Get it"))
	s.next("download.started", nil)
	prog := s.next("download.progress", func(ev event) bool { return ev.Bytes > 0 })
	if prog.Total != 2*half || prog.Bytes > prog.Total {
		t.Fatalf("download.progress: %+v", prog)
	}
	// downloads says how far it is (a bounded poll: the list reflects the
	// browser's progress events as they come).
	deadline := time.Now().Add(10 * time.Second)
	for {
		out := e.ok("downloads")
		if strings.Contains(out, fmt.Sprintf("of %d bytes", 2*half)) && strings.Contains(out, "in_progress") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("downloads never showed the bytes of the total:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond) // a bounded poll of the download list
	}
	release <- struct{}{}
	done := s.next("download.finished", nil)
	if done.State != "completed" || done.Bytes != 2*half {
		t.Fatalf("download.finished: %+v", done)
	}
}
