package eventlog

import (
	"fmt"
	"testing"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// source names surfaces from fixed tables.
type source struct {
	contexts map[int64]string
	frames   map[string]string
}

func (s source) ContextSurface(id int64) string { return s.contexts[id] }
func (s source) FrameSurface(id string) string  { return s.frames[id] }

func event(method, params string) cdp.Event {
	return cdp.Event{Method: method, Params: []byte(params)}
}

func TestRecordProvenanceAndRedirects(t *testing.T) {
	l := New()
	src := source{contexts: map[int64]string{7: "s2"}, frames: map[string]string{"F1": "s1"}}
	l.Record(event("Runtime.consoleAPICalled", `{"type":"assert","executionContextId":7,"args":[{"type":"string","value":"x"},{"type":"number","value":1}]}`), src)
	l.Record(event("Runtime.consoleAPICalled", `{"type":"log","executionContextId":99,"args":[{"type":"undefined"}]}`), src)
	c := l.Console("", false)
	if len(c) != 2 || c[0].SurfaceID != "s2" || c[0].Level != "error" || c[0].Text != "x 1" || c[1].SurfaceID != "" || c[1].Text != "undefined" {
		t.Fatalf("console: %+v", c)
	}
	// Clearing one surface's messages leaves another's.
	if got := l.Console("s2", true); len(got) != 1 {
		t.Fatalf("console of s2: %+v", got)
	}
	if got := l.Console("", false); len(got) != 1 || got[0].Text != "undefined" {
		t.Fatalf("console after clearing s2's: %+v", got)
	}
	if got := l.Console("", true); len(got) != 1 {
		t.Fatalf("console of all: %+v", got)
	}
	if got := l.Console("", false); len(got) != 0 {
		t.Fatalf("console after clear: %+v", got)
	}

	// A redirect reuses the request id: the first hop is done, the second
	// is followed to its end.
	req := `{"requestId":"R","frameId":"F1","type":"Document","timestamp":1,"request":{"method":"GET","url":"%s"}}`
	l.Record(event("Network.requestWillBeSent", fmt.Sprintf(req, "http://a/")), src)
	l.Record(event("Network.requestWillBeSent", fmt.Sprintf(req, "http://b/")), src)
	l.Record(event("Network.responseReceived", `{"requestId":"R","response":{"status":200,"mimeType":"text/html"}}`), src)
	l.Record(event("Network.loadingFinished", `{"requestId":"R","timestamp":1.25,"encodedDataLength":42}`), src)
	// A request of another surface (s2's context has no frame here: its
	// records name the surface of their frame), kept by s1's clear.
	l.Record(event("Network.requestWillBeSent", `{"requestId":"Q","frameId":"F2","type":"Document","timestamp":1,"request":{"method":"GET","url":"http://c/"}}`), source{frames: map[string]string{"F2": "s2"}})
	l.Record(event("Network.loadingFinished", `{"requestId":"Q","timestamp":1.5,"encodedDataLength":7}`), src)
	n := l.Network("s1", true)
	if len(n) != 2 || n[0].State != "done" || n[0].Status != 0 || n[1].State != "done" || n[1].Status != 200 || n[1].Bytes != 42 || n[1].DurationMS != 250 {
		t.Fatalf("network: %+v", n)
	}
	if got := l.Network("", false); len(got) != 1 || got[0].SurfaceID != "s2" || got[0].State != "done" {
		t.Fatalf("after clearing s1's: %+v", got)
	}
	l.Network("", true)
	if got := l.Network("", false); len(got) != 0 {
		t.Fatalf("finished requests kept after clear: %+v", got)
	}
}

func TestBoundsAndPolicy(t *testing.T) {
	l := New()
	for i := range maxDialogs + 5 {
		l.AddDialog(DialogRecord{Message: fmt.Sprint(i)})
	}
	d := l.Dialogs()
	if len(d) != maxDialogs || d[0].Message != "5" || l.DialogCount() != maxDialogs+5 {
		t.Fatalf("%d dialogs kept, first %q, %d counted", len(d), d[0].Message, l.DialogCount())
	}
	for _, c := range []struct {
		mode, typ string
		want      bool
	}{
		{"auto", "alert", true}, {"auto", "beforeunload", true}, {"auto", "confirm", false}, {"auto", "prompt", false},
		{"accept", "confirm", true}, {"dismiss", "alert", false},
	} {
		l.SetDialogPolicy(DialogPolicy{Mode: c.mode})
		if got := l.DialogPolicy().Accepts(c.typ); got != c.want {
			t.Errorf("%s answers %s: accept %v, want %v", c.mode, c.typ, got, c.want)
		}
	}
}

// Uncaught exceptions and unhandled rejections are console records of
// their own level, with the message DevTools shows and where it was
// thrown.
func TestUncaughtExceptionsAreRecorded(t *testing.T) {
	l := New()
	src := source{contexts: map[int64]string{7: "s2"}}
	l.Record(event("Runtime.exceptionThrown", `{"timestamp":1,"exceptionDetails":{"exceptionId":1,"text":"Uncaught","lineNumber":4,"columnNumber":9,
		"url":"http://127.0.0.1/app.js","executionContextId":7,"exception":{"type":"object","subtype":"error","className":"Error",
		"description":"Error: boom\n    at http://127.0.0.1/app.js:5:10"}}}`), src)
	l.Record(event("Runtime.exceptionThrown", `{"timestamp":2,"exceptionDetails":{"exceptionId":2,"text":"Uncaught (in promise)","lineNumber":0,"columnNumber":0,
		"executionContextId":7,"exception":{"type":"string","value":"plain"},
		"stackTrace":{"callFrames":[{"functionName":"","scriptId":"3","url":"http://127.0.0.1/p.js","lineNumber":2,"columnNumber":1}]}}}`), src)
	c := l.Console("", false)
	if len(c) != 2 {
		t.Fatalf("console: %+v", c)
	}
	if r := c[0]; r.Level != "exception" || r.Text != "Uncaught Error: boom" || r.URL != "http://127.0.0.1/app.js" || r.Line != 5 || r.SurfaceID != "s2" {
		t.Errorf("an uncaught error: %+v", r)
	}
	if r := c[1]; r.Text != `Uncaught (in promise) "plain"` || r.URL != "http://127.0.0.1/p.js" || r.Line != 3 {
		t.Errorf("an unhandled rejection: %+v", r)
	}
}
