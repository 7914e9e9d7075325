package e2e

import (
	"testing"

	"github.com/loupe-dev/loupe/internal/testenv"
)

// churnPage replaces 450 buttons every 50 ms.
const churnPage = `<h1>Churn</h1><div id="box"></div><script>
const box = document.getElementById("box");
setInterval(() => {
  const frag = document.createDocumentFragment();
  for (let i = 0; i < 450; i++) {
    const b = document.createElement("button");
    b.textContent = "Item " + i + " " + Math.random().toString(36).slice(2, 6);
    frag.appendChild(b);
  }
  box.replaceChildren(frag);
}, 50);
</script>`

// TestSoakChurningPage: snapshots of a page that replaces its nodes all
// the time do not grow the daemon without bound: the refs of nodes that
// left the page go with them. (Before, 300 snapshots grew it from 18 to
// 72 MB; now 17 to 23 MB.)
func TestSoakChurningPage(t *testing.T) {
	t.Parallel()
	if !testenv.Long() {
		t.Skip("a soak test: make test-long")
	}
	e := newEnv(t)
	srv, _ := countingPage(t, churnPage)
	e.ok("open", srv.URL+"/")
	rss := func() int64 {
		var st struct {
			RSS int64 `json:"rss_bytes"`
		}
		e.okJSON(&st, "daemon", "status")
		return st.RSS >> 20
	}
	for range 20 { // warm up: the first snapshots size the daemon's buffers
		e.ok("snapshot")
	}
	start := rss()
	const n = 250
	for range n {
		e.ok("snapshot")
	}
	grown := rss() - start
	t.Logf("daemon RSS %d MB after the warm-up, +%d MB after %d more snapshots of the churning page", start, grown, n)
	if grown > 20 {
		t.Errorf("the daemon grew %d MB over %d snapshots (bound: 20 MB)", grown, n)
	}
}
