package capture_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
)

func TestBackendIDsCollideAcrossRenderers(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/collide.html"))
	s, err := capture.Take(ctxT(t), tab, capture.SnapshotOptions{BackendIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64][]capture.RefInfo{}
	for _, r := range s.Refs {
		if r.BackendNodeID == 0 {
			t.Fatalf("ref %s has no backendNodeId", r.Ref)
		}
		byID[r.BackendNodeID] = append(byID[r.BackendNodeID], r)
	}
	var pair []capture.RefInfo
	for id, rs := range byID {
		if len(rs) < 2 {
			continue
		}
		if rs[0].FrameID == rs[1].FrameID {
			t.Fatalf("backend id %d twice in one frame: %+v", id, rs)
		}
		if rs[0].Role == "button" && rs[1].Role == "button" {
			pair = rs[:2]
		}
	}
	if pair == nil {
		t.Fatalf("no two buttons share a backend node id across the renderers; the fixture no longer tests a collision:\n%+v", s.Refs)
	}
	// Each ref of the colliding pair acts on its own frame's button.
	for _, r := range pair {
		if _, err := action.Click(ctxT(t), tab, r.Ref, action.ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", r.Ref, err)
		}
	}
	after := snap(t, tab)
	for _, r := range pair {
		want := "top:" + strings.TrimPrefix(r.Name, "T")
		if strings.HasPrefix(r.Name, "C") {
			want = "child:" + strings.TrimPrefix(r.Name, "C")
		}
		if !strings.Contains(after.Text, want) {
			t.Errorf("clicking %s (%q, backend %d) did not give %q:\n%s", r.Ref, r.Name, r.BackendNodeID, want, after.Text)
		}
	}
	// A later snapshot reuses the cached ids.
	again, err := capture.Take(ctxT(t), tab, capture.SnapshotOptions{BackendIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range again.Refs {
		if r.BackendNodeID != s.Refs[i].BackendNodeID || r.Ref != s.Refs[i].Ref {
			t.Fatalf("ref %d changed: %+v -> %+v", i, s.Refs[i], r)
		}
	}
}

// TestUnreadableFrameIsLocal: a frame that does not answer costs the
// snapshot its own deadline, no more, and only its own content. (The
// hung frame's site is the test's own, see enginetest.StartPair: no other
// test's frame shares its renderer.)
func TestUnreadableFrameIsLocal(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/busytop.html"))
	snap(t, tab)
	// Hang the cross-site frame's main thread in a synchronous request
	// that is answered only when the test ends: the snapshot's calls queue
	// behind it, and the frame burns no CPU meanwhile. A snapshot that
	// waited for the frame would wait for the whole step's context.
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for the request
	busy := enginetest.OOPIF(t, tab).Session
	go busy.Call(withTimeout(ctxT(t), 20*time.Second), "Runtime.evaluate", map[string]string{"expression": fmt.Sprintf(
		"{ const x = new XMLHttpRequest(); x.open('GET', %q, false); try { x.send(); } catch {} }", hang.URL)}, nil)
	// The request is sent from another goroutine: wait until the frame
	// stops answering (bounded poll, 300 ms per probe).
	for i := 0; ; i++ {
		err := busy.Call(withTimeout(ctxT(t), 300*time.Millisecond), "Runtime.evaluate", map[string]string{"expression": "1"}, nil)
		if err != nil {
			break
		}
		if i == 20 {
			t.Fatal("the frame never became busy")
		}
	}
	start := time.Now()
	s := snap(t, tab)
	took := time.Since(start)
	if !strings.Contains(s.Text, "MK-BUSY-TOP") || !strings.Contains(s.Text, "MK-CHAIN-3") {
		t.Fatalf("the rest of the page is missing:\n%s", s.Text)
	}
	if !strings.Contains(s.Text, `iframe "busy frame" [ref=`) || !strings.Contains(s.Text, "[frame unreadable: timed out]") ||
		strings.Contains(s.Text, "MK-BUSY-FRAME") {
		t.Fatalf("the busy frame is not marked:\n%s", s.Text)
	}
	// Generous: the rest of the page takes well under a second, but a
	// loaded machine may add seconds; a snapshot that waited for the hung
	// frame (or for its deadline twice) would take 10 s or more.
	if took > capture.FrameTimeout+4*time.Second {
		t.Fatalf("snapshot took %v; a frame's deadline is %v", took, capture.FrameTimeout)
	}
	t.Logf("snapshot with a hung frame took %v", took)
	if _, err := action.Click(ctxT(t), tab, ref(t, s, "button", "Top button"), action.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestFrameDepthLimit(t *testing.T) {
	t.Parallel()
	a, _ := startPair(t)
	tab := openTab(t, a.Page("frames/chain.html"))
	// The deepest frame attaches as it loads.
	enginetest.Eventually(t, "the deepest frame", func() bool { return strings.Contains(snap(t, tab).Text, "MK-CHAIN-3") })
	s, err := capture.Take(ctxT(t), tab, capture.SnapshotOptions{MaxFrameDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, "MK-CHAIN-2") || strings.Contains(s.Text, "MK-CHAIN-3") ||
		!strings.Contains(s.Text, `iframe "level 3" [ref=`) || !strings.Contains(s.Text, "[frame depth limit 2]") {
		t.Fatalf("depth limit 2:\n%s", s.Text)
	}
}
