package input

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/keys"
)

// recorder is a cdp.Session that records the commands sent on it, as the
// browser would receive them, and answers each with an empty result.
type recorder struct {
	calls []string // "method params-json"
	fail  int      // fail the call with this 1-based index; 0 never
}

func (r *recorder) Call(_ context.Context, method string, params, _ any) error {
	b, err := jsonv2.Marshal(params)
	if err != nil {
		return err
	}
	r.calls = append(r.calls, method+" "+string(b))
	if len(r.calls) == r.fail {
		return errors.New("boom")
	}
	return nil
}

func (r *recorder) Subscribe(string) (<-chan jsonv2.Value, func()) {
	ch := make(chan jsonv2.Value)
	close(ch)
	return ch, func() {}
}

// keys summarises the recorded key events as "type:key:modifiers:text".
func (r *recorder) keys(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, c := range r.calls {
		method, params, _ := strings.Cut(c, " ")
		var p struct {
			Type      string `json:"type"`
			Key       string `json:"key"`
			Modifiers int64  `json:"modifiers"`
			Text      string `json:"text"`
		}
		if err := jsonv2.Unmarshal([]byte(params), &p); err != nil {
			t.Fatal(err)
		}
		switch method {
		case "Input.dispatchKeyEvent":
			out = append(out, fmt.Sprintf("%s:%s:%d:%q", p.Type, p.Key, p.Modifiers, p.Text))
		case "Input.insertText":
			out = append(out, fmt.Sprintf("insert:%q", p.Text))
		default:
			out = append(out, method)
		}
	}
	return out
}

func TestPress(t *testing.T) {
	for _, tc := range []struct {
		chord string
		want  []string
	}{
		{"Enter", []string{`keyDown:Enter:0:"\r"`, `keyUp:Enter:0:""`}},
		{"Tab", []string{`rawKeyDown:Tab:0:""`, `keyUp:Tab:0:""`}},
		{"a", []string{`keyDown:a:0:"a"`, `keyUp:a:0:""`}},
		{"Space", []string{`keyDown: :0:" "`, `keyUp: :0:""`}},
		// Modifiers go down in order, accumulate, and come up in reverse.
		{"Control+Shift+ArrowLeft", []string{
			`rawKeyDown:Control:2:""`, `rawKeyDown:Shift:10:""`,
			`rawKeyDown:ArrowLeft:10:""`, `keyUp:ArrowLeft:10:""`,
			`keyUp:Shift:2:""`, `keyUp:Control:0:""`,
		}},
		// A shortcut types nothing.
		{"Control+a", []string{`rawKeyDown:Control:2:""`, `rawKeyDown:a:2:""`, `keyUp:a:2:""`, `keyUp:Control:0:""`}},
		{"Alt+Enter", []string{`rawKeyDown:Alt:1:""`, `rawKeyDown:Enter:1:""`, `keyUp:Enter:1:""`, `keyUp:Alt:0:""`}},
		{"Meta+v", []string{`rawKeyDown:Meta:4:""`, `rawKeyDown:v:4:""`, `keyUp:v:4:""`, `keyUp:Meta:0:""`}},
		// Shift alone still types.
		{"Shift+Tab", []string{`rawKeyDown:Shift:8:""`, `rawKeyDown:Tab:8:""`, `keyUp:Tab:8:""`, `keyUp:Shift:0:""`}},
	} {
		c, err := keys.ParseChord(tc.chord)
		if err != nil {
			t.Fatal(err)
		}
		var r recorder
		if err := Press(context.Background(), &r, c); err != nil {
			t.Fatal(err)
		}
		if got := r.keys(t); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Press(%s):\n got %q\nwant %q", tc.chord, got, tc.want)
		}
	}
}

func TestPressStopsAtFirstError(t *testing.T) {
	c, _ := keys.ParseChord("Control+a")
	r := recorder{fail: 2}
	if err := Press(context.Background(), &r, c); err == nil {
		t.Fatal("no error")
	}
	if len(r.calls) != 2 {
		t.Errorf("%d calls after a failure at the second", len(r.calls))
	}
}

func TestType(t *testing.T) {
	var r recorder
	if err := Type(context.Background(), &r, "Hi é!\n"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`keyDown:H:8:"H"`, `keyUp:H:8:""`, // a capital needs Shift on a US keyboard
		`keyDown:i:0:"i"`, `keyUp:i:0:""`,
		`keyDown: :0:" "`, `keyUp: :0:""`,
		`insert:"é"`, // off the layout: inserted as text
		`keyDown:!:8:"!"`, `keyUp:!:8:""`,
		`keyDown:Enter:0:"\r"`, `keyUp:Enter:0:""`,
	}
	if got := r.keys(t); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Type:\n got %q\nwant %q", got, want)
	}
}

func TestClick(t *testing.T) {
	var r recorder
	if err := Click(context.Background(), &r, 10, 20, "right", 2, keys.ModShift); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`Input.dispatchMouseEvent {"type":"mouseMoved","x":10,"y":20,"modifiers":8}`,
		`Input.dispatchMouseEvent {"type":"mousePressed","x":10,"y":20,"modifiers":8,"button":"right","buttons":2,"clickCount":1}`,
		`Input.dispatchMouseEvent {"type":"mouseReleased","x":10,"y":20,"modifiers":8,"button":"right","clickCount":1}`,
		`Input.dispatchMouseEvent {"type":"mousePressed","x":10,"y":20,"modifiers":8,"button":"right","buttons":2,"clickCount":2}`,
		`Input.dispatchMouseEvent {"type":"mouseReleased","x":10,"y":20,"modifiers":8,"button":"right","clickCount":2}`,
	}
	if strings.Join(r.calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("Click:\n got %s\nwant %s", strings.Join(r.calls, "\n    "), strings.Join(want, "\n     "))
	}
}

// Chromium needs both wheel deltas, zero or not.
func TestWheelSendsBothDeltas(t *testing.T) {
	var r recorder
	if err := Wheel(context.Background(), &r, 1, 2, 0, -100); err != nil {
		t.Fatal(err)
	}
	want := `Input.dispatchMouseEvent {"type":"mouseWheel","x":1,"y":2,"deltaX":0,"deltaY":-100}`
	if len(r.calls) != 1 || r.calls[0] != want {
		t.Errorf("Wheel = %q, want %q", r.calls, want)
	}
}

func TestButtonsMask(t *testing.T) {
	for b, want := range map[keys.Button]int64{"left": 1, "right": 2, "middle": 4} {
		if got := buttonsMask(b); got != want {
			t.Errorf("buttonsMask(%q) = %d, want %d", b, got, want)
		}
	}
}
