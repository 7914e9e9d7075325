package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/testpages"
)

// TestFramesThroughCLI uses refs inside a same-origin and a cross-site
// frame as a user of the CLI would, without knowing they are in frames.
func TestFramesThroughCLI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := testpages.StartPair(t)
	e.ok("open", a.Page("frames/top.html"))
	var js struct {
		Text string
		Refs []struct {
			Ref           string `json:"ref"`
			FrameID       string `json:"frameId"`
			BackendNodeID int64  `json:"backendNodeId"`
			Role          string `json:"role"`
			Name          string `json:"name"`
		}
	}
	rawOut := e.ok("--json", "snapshot")
	if err := json.Unmarshal([]byte(rawOut), &js); err != nil {
		t.Fatal(err)
	}
	gos := map[string]string{} // frame id -> ref
	files := map[string]string{}
	for _, r := range js.Refs {
		if r.BackendNodeID == 0 {
			t.Errorf("ref %s has no backendNodeId", r.Ref)
		}
		switch {
		case r.Role == "button" && r.Name == "Go":
			gos[r.FrameID] = r.Ref
		case r.Role == "button" && r.Name == "Attachment":
			files[r.FrameID] = r.Ref
		}
	}
	if len(gos) != 3 || gos[""] == "" || len(files) != 2 {
		t.Fatalf("refs: %+v\n%s", js.Refs, js.Text)
	}
	if strings.Count(rawOut, `"frameId"`) != len(js.Refs)-countTop(js.Refs) {
		t.Errorf("frameId should be omitted exactly for the top document: %s", rawOut)
	}
	for _, ref := range gos {
		e.ok("click", "@"+ref)
	}
	snap := e.ok("snapshot")
	for _, want := range []string{"clicked:top", "clicked:same:true", "clicked:cross:true"} {
		if !strings.Contains(snap, want) {
			t.Errorf("missing %q:\n%s", want, snap)
		}
	}
	// Upload into each frame's file input: the CLI sends the file, the
	// page reads it back.
	f := filepath.Join(t.TempDir(), "note.txt")
	os.WriteFile(f, []byte("hello from loupe"), 0o644)
	for _, ref := range files {
		e.ok("upload", ref, f)
	}
	snap = e.ok("snapshot")
	if strings.Count(snap, ":note.txt:hello from loupe") != 2 {
		t.Errorf("uploads did not reach both frames:\n%s", snap)
	}
	r := e.run("upload", gos[""], f)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "NOT_ACTIONABLE: ") {
		t.Errorf("upload to a button: %d %q", r.code, r.stderr)
	}
}

func countTop(refs []struct {
	Ref           string `json:"ref"`
	FrameID       string `json:"frameId"`
	BackendNodeID int64  `json:"backendNodeId"`
	Role          string `json:"role"`
	Name          string `json:"name"`
}) int {
	n := 0
	for _, r := range refs {
		if r.FrameID == "" {
			n++
		}
	}
	return n
}
