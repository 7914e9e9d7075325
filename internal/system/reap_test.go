package system

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/loupe-dev/loupe/internal/homedir"
	"github.com/loupe-dev/loupe/internal/procid"
)

// ReapLeftovers gives back the WebDriver sessions that a daemon and an
// in-process MCP server of the home left on a Grid when they died (the
// lease files in each one's sessions), and leaves a running owner's.
func TestReapLeftoversReleasesGridLeases(t *testing.T) {
	var mu sync.Mutex
	var deleted []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := strings.CutPrefix(r.URL.Path, "/session/"); ok && r.Method == http.MethodDelete {
			mu.Lock()
			deleted = append(deleted, id)
			mu.Unlock()
			fmt.Fprint(w, `{"value":null}`)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dead, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	me, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	put := func(sessions, id string, owner procid.ID) string {
		dir := filepath.Join(sessions, "s")
		os.MkdirAll(dir, 0o700)
		// The format a lease file of package sessions has on disk.
		f := filepath.Join(dir, "grid-"+id+".lease")
		body := fmt.Sprintf(`{"grid":%q,"session":%q,"owner":%d,"owner_start":%d,"boot":%q}`, srv.URL, id, owner.PID, owner.Start, owner.Boot)
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	daemons := put(filepath.Join(home, "sessions"), "d-1", dead)
	mcps := put(filepath.Join(homedir.MCPHome(home), "sessions"), "m-1", dead)
	live := put(filepath.Join(home, "sessions"), "live-1", me)
	ReapLeftovers(context.Background(), home, quiet)
	mu.Lock()
	got := slices.Sorted(slices.Values(deleted))
	mu.Unlock()
	if !slices.Equal(got, []string{"d-1", "m-1"}) {
		t.Errorf("deleted %v, want the dead daemon's and the dead MCP server's", got)
	}
	for _, f := range []string{daemons, mcps} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", f, err)
		}
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the running owner's lease: %v", err)
	}
}
