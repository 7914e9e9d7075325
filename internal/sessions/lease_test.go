package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/procid"
)

// deadOwner names a process that has exited (run to its end and waited
// for), as a lease's owner.
func deadOwner(t *testing.T) procid.ID {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	return id
}

// A lease file is its user's alone, names this process as the owner, and
// reads back as written; an id that could not name a file is named by
// its digest.
func TestLeaseFile(t *testing.T) {
	dir := t.TempDir()
	url := "http://ada:secret@127.0.0.1:4444"
	if err := writeLease(dir, url, "0a1b2c3d4e5f"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "grid-0a1b2c3d4e5f.lease")
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lease file: %v %v", fi, err)
	}
	r, err := readLease(path)
	me, _ := procid.Self()
	if err != nil || r.Grid != url || r.Session != "0a1b2c3d4e5f" || r.owner() != me {
		t.Fatalf("read back: %+v, %v (this process: %+v)", r, err, me)
	}
	if r.owner().Gone() {
		t.Error("this process, the lease's owner, is taken for gone")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	for _, id := range []string{"../../etc/x", ".hidden", "a/b", "", strings.Repeat("f", 101)} {
		if p := leasePath(dir, id); filepath.Dir(p) != dir || !strings.HasPrefix(filepath.Base(p), "grid-") || strings.Contains(filepath.Base(p), ".hidden") || len(filepath.Base(p)) > 60 {
			t.Errorf("the lease file of %q: %s", id, p)
		}
	}
	removeLease(dir, "0a1b2c3d4e5f")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after removeLease: %v", err)
	}
}

// leftoverGrid is a Grid on loopback whose Delete Session answers as
// replies say, by session id (absent: deleted); "hang" never answers.
// It records the deletes and the credentials they came with; together is
// closed once two deletes hang at the same time.
func leftoverGrid(t *testing.T, replies map[string]string) (url string, deletes func() []string, together chan struct{}) {
	var mu sync.Mutex
	var del []string
	hanging := 0
	together = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/session/")
		if r.Method != http.MethodDelete || !ok {
			http.NotFound(w, r)
			return
		}
		user, pass, _ := r.BasicAuth()
		mu.Lock()
		del = append(del, id+" "+user+":"+pass)
		mu.Unlock()
		switch reply := replies[id]; reply {
		case "":
			io.WriteString(w, `{"value":null}`)
		case "hang":
			mu.Lock()
			if hanging++; hanging == 2 {
				close(together)
			}
			mu.Unlock()
			<-r.Context().Done()
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, reply)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Sorted(slices.Values(del))
	}, together
}

// putLease writes a lease file as an owner would have.
func putLease(t *testing.T, sessionsDir, name string, r leaseRecord) string {
	t.Helper()
	dir := filepath.Join(sessionsDir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	path := leasePath(dir, r.Session)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReleaseLeftovers deletes the WebDriver sessions of owners that are
// gone (exited, or of another boot) and forgets them once the Grid
// deleted them or has no such session; a Grid that refuses, does not
// answer or cannot be reached keeps its lease on record, said in the log
// without the Grid's password; a live owner's lease is not touched; a
// file that records no lease is removed, one that cannot be read kept.
func TestReleaseLeftovers(t *testing.T) {
	me, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	dead := deadOwner(t)
	gone := `{"value":{"error":"invalid session id","message":"Unable to find session with ID: gone-1\nBuild info: 4.21.0"}}`
	refused := `{"value":{"error":"unknown error","message":"Could not reach the node"}}`
	url, deletes, together := leftoverGrid(t, map[string]string{"gone-1": gone, "refused-1": refused, "hang-1": "hang", "hang-2": "hang"})
	withAuth := strings.Replace(url, "http://", "http://ada:secret@", 1)
	unreachable := httptest.NewServer(http.NotFoundHandler())
	unreachable.Close()

	daemon, mcp := t.TempDir(), t.TempDir()
	lease := func(grid, id string, owner procid.ID) leaseRecord {
		return leaseRecord{Grid: grid, Session: id, Owner: owner.PID, OwnerStart: owner.Start, Boot: owner.Boot}
	}
	kept := map[string]string{
		"live":        putLease(t, daemon, "live", lease(url, "live-1", me)),
		"refused":     putLease(t, daemon, "refused", lease(url, "refused-1", dead)),
		"hang":        putLease(t, mcp, "hang", lease(url, "hang-1", dead)),
		"hang too":    putLease(t, daemon, "hang", lease(url, "hang-2", dead)),
		"unreachable": putLease(t, mcp, "down", lease(unreachable.URL, "down-1", dead)),
	}
	removed := map[string]string{
		"dead owner":    putLease(t, daemon, "work", lease(withAuth, "dead-1", dead)),
		"another boot":  putLease(t, daemon, "old", lease(url, "old-1", procid.ID{PID: me.PID, Start: me.Start, Boot: "another boot"})),
		"gone":          putLease(t, mcp, "mcp", lease(url, "gone-1", dead)),
		"pid reused":    putLease(t, mcp, "reused", lease(url, "reused-1", procid.ID{PID: me.PID, Start: me.Start + 1, Boot: me.Boot})),
		"no owner":      putLease(t, mcp, "anon", leaseRecord{Grid: url, Session: "anon-1"}),
		"two in a dir":  putLease(t, daemon, "work", lease(url, "dead-2", dead)),
		"malformed":     filepath.Join(daemon, "work", "grid-bad.lease"),
		"no session":    filepath.Join(daemon, "work", "grid-empty.lease"),
		"not a Grid":    filepath.Join(daemon, "work", "grid-ftp.lease"),
		"not JSON even": filepath.Join(mcp, "mcp", "grid-junk.lease"),
	}
	os.WriteFile(removed["malformed"], []byte(`{"grid":`), 0o600)
	os.WriteFile(removed["no session"], []byte(`{"grid":"http://127.0.0.1:4444","owner":1}`), 0o600)
	os.WriteFile(removed["not a Grid"], []byte(`{"grid":"ftp://ada:secret@x","session":"f-1"}`), 0o600)
	os.WriteFile(removed["not JSON even"], []byte("\x00\x01"), 0o600)
	// A directory by a lease file's name cannot be read as one.
	kept["unreadable"] = filepath.Join(daemon, "work", "grid-dir.lease")
	if err := os.Mkdir(kept["unreadable"], 0o700); err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	// The caller's deadline, shorter than leftoverTimeout, bounds the
	// deletes the Grid does not answer.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	released := ReleaseLeftovers(ctx, slog.New(slog.NewTextHandler(&log, nil)), daemon, mcp)

	slices.Sort(released)
	if want := []string{"anon-1", "dead-1", "dead-2", "gone-1", "old-1", "reused-1"}; !slices.Equal(released, want) {
		t.Errorf("released %v, want %v", released, want)
	}
	for what, f := range removed {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s: %s is still there (%v)", what, f, err)
		}
	}
	for what, f := range kept {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %s is gone: %v", what, f, err)
		}
	}
	// Each leftover was asked for once, the live owner's never; the
	// password reached the Grid.
	want := []string{"anon-1 :", "dead-1 ada:secret", "dead-2 :", "gone-1 :", "hang-1 :", "hang-2 :", "old-1 :", "refused-1 :", "reused-1 :"}
	if got := deletes(); !slices.Equal(got, want) {
		t.Errorf("the Grid was asked to delete %q, want %q", got, want)
	}
	// The deletes ran at once: the two the Grid held were held together
	// (one after the other, the second would not have been sent before
	// the deadline), so a Grid that does not answer costs one bound, not
	// one each.
	select {
	case <-together:
	default:
		t.Error("the deletes of leftovers ran one after the other")
	}
	out := log.String()
	if strings.Contains(out, "secret") {
		t.Errorf("the log holds a Grid's password:\n%s", out)
	}
	for _, id := range []string{"refused-1", "hang-1", "down-1", "grid-dir.lease", "grid-bad.lease", "dead-1"} {
		if !strings.Contains(out, id) {
			t.Errorf("the log does not mention %s:\n%s", id, out)
		}
	}
	if n := strings.Count(out, "did not end the WebDriver session"); n != 4 {
		t.Errorf("%d lines for the Grids that did not end a session, want 4 (refused, hang twice, down):\n%s", n, out)
	}

	// The next start asks again for what this one kept.
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if again := ReleaseLeftovers(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), daemon, mcp); len(again) != 0 {
		t.Errorf("the next start released %v", again)
	}
	if got := deletes(); len(got) != len(want)+3 || strings.Count(strings.Join(got, ","), "refused-1") != 2 || strings.Count(strings.Join(got, ","), "hang-2") != 2 {
		t.Errorf("the next start asked to delete %q", got)
	}
}

// A browser the Grid gave but loupe could not attach to, and whose
// WebDriver session the Grid then would not delete, stays on record for
// the next start; one the Grid deleted leaves no record
// (TestAttachGridFailsAfterTheGridGaveABrowser).
func TestFailedDeleteKeepsTheLease(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"value":{"sessionId":"s-9","capabilities":{"se:cdp":"ws://10.1.2.3:4444/session/s-9/se/cdp"}}}`)
	})
	mux.HandleFunc("DELETE /session/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"value":{"error":"unknown error","message":"the node is gone"}}`)
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"value":{"ready":true,"nodes":[]}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	m := New(Config{Home: t.TempDir()})
	defer m.Close(context.Background())
	s := m.Get("g")
	if _, err := s.AttachGrid(context.Background(), GridSource{URL: srv.URL}); err == nil {
		t.Fatal("attach to a Grid whose CDP endpoint fails succeeded")
	} else if e, ok := apitype.As(err); !ok || e.Code != apitype.BrowserStart {
		t.Fatalf("attach: %v", err)
	}
	r, err := readLease(filepath.Join(s.Dir(), "grid-s-9.lease"))
	me, _ := procid.Self()
	if err != nil || r.Session != "s-9" || r.Grid != srv.URL || r.owner() != me {
		t.Fatalf("the lease the Grid did not delete: %+v, %v", r, err)
	}
}
