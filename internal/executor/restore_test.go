package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/ops"
)

// TestTabsfileAndRestoreStages: the tabs file records each session's id
// numbers before a call's reply; a session whose tabs were kept by an
// earlier daemon starts its numbering past them; the restore stage has
// nothing to do without kept tabs or a browser, for operations on the
// session, and for operations that need no browser.
func TestTabsfileAndRestoreStages(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "tabs.json")
	kept := `{"version":1,"clean":true,"sessions":{"work":{"surfaces":41,"refs":900}}}`
	if err := os.WriteFile(file, []byte(kept), 0o600); err != nil {
		t.Fatal(err)
	}
	x := New(Config{Home: home, Chromium: "/nonexistent", TabsFile: file})
	defer x.Close(context.Background())
	if surfaces, refs := x.sessions.Get("work").IDs().Last(); surfaces != 41 || refs != 900 {
		t.Fatalf("numbering starts at %d, %d", surfaces, refs)
	}
	for _, c := range []*call{
		fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, nil),
		fakeCall(t, describe[nothing]("tabs", ops.Read, sessionWide), nil, nil),
		fakeCall(t, describe[nothing]("ops", ops.Read, noBrowser), nil, nil),
	} {
		if leave, err := enter(t, restoreStage{x}, c); leave != nil || err != nil {
			t.Fatalf("%s: %v", c.op.Name, err)
		}
	}
	x.sessions.Get("default").IDs().Skip(7, 70) // as a call that drew ids
	leave, _ := enter(t, tabsfileStage{x}, fakeCall(t, describe[nothing]("snapshot", ops.Read), nil, nil))
	leave(&outcome{})
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `"surfaces": 7`) || !strings.Contains(string(b), `"surfaces": 41`) {
		t.Fatalf("tabs file after a call: %s, %v", b, err)
	}
}
