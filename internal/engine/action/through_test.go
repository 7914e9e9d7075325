package action_test

import (
	"strings"
	"testing"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
)

// Clicks on what takes no pointer events (through.html): a line of an
// editor's text layer is clicked where it shows, the element under the
// layer taking the click; a transparent native select laid over the
// combobox drawn for it is clicked at that combobox; a button the page
// turned off with pointer-events is refused, saying so.

// textRef is the ref of the line whose text is text.
func textRef(t *testing.T, s *capture.Snapshot, text string) string {
	t.Helper()
	for _, l := range strings.Split(s.Text, "\n") {
		if strings.HasSuffix(l, ": "+text) {
			if r := refOfLine(l); r != "" {
				return r
			}
		}
	}
	t.Fatalf("no line of text %q with a ref:\n%s", text, s.Text)
	return ""
}

func TestThroughLayerLine(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "through.html")
	s := snap(t, tab)
	r, err := action.Click(ctxT(t), tab, textRef(t, s, "beta"), action.ClickOptions{})
	if err != nil {
		t.Fatalf("click the line beta: %v", err)
	}
	if got := byID(t, tab, "line-out"); got != "beta" || !strings.Contains(r.Note, "takes the clicks there") {
		t.Errorf("click the line beta: the editor saw %q (note %q)", got, r.Note)
	}
}

func TestThroughTurnedOffButton(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "through.html")
	_, err := action.Click(ctxT(t), tab, firstRef(t, snap(t, tab), "button", "Turned off"), action.ClickOptions{})
	if e := wantCode(t, err, apitype.NotActionable); !strings.Contains(e.Message, "takes no pointer events") {
		t.Errorf("click the turned-off button: %v", e)
	}
	if got := byID(t, tab, "off-out"); got != "none" {
		t.Errorf("a refused click reached the button: %q", got)
	}
}

func TestThroughDrawnWidget(t *testing.T) {
	t.Parallel()
	tab := openTab(t, "through.html")
	r, err := action.Click(ctxT(t), tab, firstRef(t, snap(t, tab), "listbox", "Tags"), action.ClickOptions{})
	if err != nil {
		t.Fatalf("click the tags: %v", err)
	}
	if got := evalString(t, tab, `document.getElementById('pick').getAttribute('aria-expanded')`); got != "true" || !strings.Contains(r.Note, "the widget drawn under it") {
		t.Fatalf("click the tags: expanded %q (note %q)", got, r.Note)
	}
	if _, err := action.Click(ctxT(t), tab, firstRef(t, snap(t, tab), "option", "Blue"), action.ClickOptions{}); err != nil {
		t.Fatalf("pick Blue: %v", err)
	}
	if got := byID(t, tab, "tags-out"); got != "blue" {
		t.Errorf("pick Blue: tags %q", got)
	}
}
