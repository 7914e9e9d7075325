package chooser_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/chooser"
	"github.com/loupe-dev/loupe/internal/engine/enginetest"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/surface"
)

func TestMain(m *testing.M) { os.Exit(enginetest.Main(m)) }

// A click that opens a file chooser — in the page and in a cross-site
// frame — leaves it pending, reported to the watcher; an answer gives the
// input the file, as a person's choice would; with none pending an answer
// is refused, not executed.
func TestFileChooserIsReportedAndAnswered(t *testing.T) {
	t.Parallel()
	opened := make(chan chooser.Pending, 4)
	b := enginetest.OwnBrowser(t, chooser.Intercept(func(_ context.Context, _ *engine.Surface, p chooser.Pending) { opened <- p }))
	a, _ := enginetest.StartPair(t)
	tab, err := surface.NewTab(enginetest.Ctx(t), b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nav.Navigate(enginetest.Ctx(t), tab, a.Page("frames/top.html")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(file, []byte("MK-CHOSEN"), 0o600)

	err = chooser.Answer(enginetest.Ctx(t), tab, []string{file})
	enginetest.WantCode(t, err, apitype.BadInput)
	if e, _ := apitype.As(err); e == nil || !e.NotExecuted {
		t.Fatalf("an answer with nothing pending: %v", err)
	}

	enginetest.Snap(t, tab) // the frames are attached
	s := enginetest.Snap(t, tab)
	for _, label := range []string{"Attachment"} {
		var refs []string
		for _, r := range s.Refs {
			if r.Name == label {
				refs = append(refs, r.Ref)
			}
		}
		if len(refs) < 2 {
			t.Fatalf("want the top page's and frames' %q inputs:\n%s", label, s.Text)
		}
		for _, ref := range refs {
			if _, err := action.Click(enginetest.Ctx(t), tab, ref, action.ClickOptions{}); err != nil {
				t.Fatalf("click %s: %v", ref, err)
			}
			select {
			case p := <-opened:
				if p.Page != tab.ID {
					t.Fatalf("chooser of %s, want %s", p.Page, tab.ID)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no chooser reported for %s", ref)
			}
			if _, ok := chooser.Of(b).Pending(tab.ID); !ok {
				t.Fatal("the chooser is not pending")
			}
			if err := chooser.Answer(enginetest.Ctx(t), tab, []string{file}); err != nil {
				t.Fatalf("answer for %s: %v", ref, err)
			}
			if _, ok := chooser.Of(b).Pending(tab.ID); ok {
				t.Fatal("the chooser is still pending after the answer")
			}
		}
	}
	enginetest.Eventually(t, "the chosen file read in each frame", func() bool {
		return strings.Count(enginetest.Snap(t, tab).Text, ":notes.txt:MK-CHOSEN") >= 2
	})
}
