package ops

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/loupe-dev/loupe/internal/apitype"
)

// TestInputRules holds every operation's input to its rules: each input
// below is decoded as a front end's would be (ops.Decode: strict JSON,
// then Validate) and is either accepted or refused with BAD_INPUT — a
// usage error that touches nothing.
func TestInputRules(t *testing.T) {
	reg := New()
	for _, tc := range []struct {
		op, in string
		ok     bool
	}{
		{"snapshot", `{}`, true},
		{"snapshot", `{"depth":2,"max_chars":500,"grep":"Buy","since":"last","scope":"e3"}`, true},
		{"snapshot", `{"depth":-1}`, false},
		{"snapshot", `{"max_chars":10}`, false},
		{"snapshot", `{"since":"yesterday"}`, false},
		{"snapshot", `{"grep":"` + strings.Repeat("x", 1001) + `"}`, false},
		{"snapshot", `{"unknown":1}`, false},
		{"click", `{"ref":"e3","button":"right","modifiers":"Control+Shift"}`, true},
		{"click", `{"ref":"e3","button":"thumb"}`, false},
		{"click", `{"ref":"e3","modifiers":"Hyper"}`, false},
		{"click", `{}`, false},
		{"fill", `{"ref":"#email","text":""}`, true},
		{"type", `{"text":"hi"}`, true},
		{"type", `{"ref":"e1"}`, false},
		{"type", `{"text":"hi","clear":true}`, false},
		{"drag", `{"from":"e1","to":"e2"}`, true},
		{"drag", `{"from":"e1"}`, false},
		{"press", `{"keys":["Enter","Control+A"]}`, true},
		{"press", `{"keys":[]}`, false},
		{"press", `{"keys":["Ctrl+Nope"]}`, false},
		{"select", `{"ref":"e1","values":["a"]}`, true},
		{"select", `{"ref":"e1","values":[]}`, false},
		{"scroll", `{"dy":300}`, true},
		{"scroll", `{}`, false},
		{"scroll", `{"dx":1e7}`, false},
		{"upload", `{"ref":"e1","files":["cv.pdf"]}`, true},
		{"upload", `{"ref":"e1","contents":[{"name":"cv.pdf","data":"eA=="}]}`, true},
		{"upload", `{"ref":"e1"}`, false},
		{"upload", `{"ref":"e1","contents":[{"name":"../x","data":""}]}`, false},
		{"text", `{}`, true},
		{"attr", `{"ref":"e1","name":"href"}`, true},
		{"attr", `{"ref":"e1"}`, false},
		{"eval", `{"expression":"1+1"}`, true},
		{"eval", `{"expression":"  "}`, false},
		{"wait", `{"text":"Done","timeout_ms":500}`, true},
		{"wait", `{"text":"Done","load":true}`, false},
		{"wait", `{}`, false},
		{"policy set", `{"key":"click","decision":"deny"}`, true},
		{"policy set", `{"key":"tab new","decision":"ask","origin":"https://*.bank.example"}`, true},
		{"policy set", `{"key":"download","decision":"ask","origin":"http://127.0.0.1:*"}`, true},
		{"policy set", `{"key":"clik","decision":"deny"}`, false},
		{"policy set", `{"key":"read","decision":"deny"}`, false},
		{"policy set", `{"key":"approve","decision":"deny"}`, false},
		{"policy set", `{"key":"click","decision":"deny","origin":"bank.example"}`, false},
		{"policy set", `{"key":"click","decision":"deny","origin":"https://bank.example/pay"}`, false},
		{"policy set", `{"key":"click","decision":"deny","origin":"https://[bank"}`, false},
		{"policy unset", `{"key":"input"}`, true},
		{"policy unset", `{"key":"input","origin":"https://*.bank.example"}`, true},
		{"policy unset", `{"key":"inptu"}`, false},
		{"policy unset", `{}`, false},
		{"policy reset", `{}`, true},
		{"wait", `{"load":true,"timeout_ms":3600000}`, false},
		{"wait", `{"load":true,"timeout_ms":-5}`, false},
		{"screenshot", `{"full":true}`, true},
		{"screenshot", `{"ref":"e1","full":true}`, false},
		{"query", `{"role":"button","limit":3,"within":"e2"}`, true},
		{"query", `{}`, false},
		{"query", `{"role":"button","limit":-1}`, false},
		{"open", `{"url":"example.com","partition":"temp:x"}`, true},
		{"open", `{"url":"javascript:alert(1)"}`, false},
		{"open", `{"url":"a.test","partition":"nowhere"}`, false},
		{"tab new", `{}`, true},
		{"tab new", `{"url":"mailto:x@y"}`, false},
		{"tab activate", `{"surface_id":"s2"}`, true},
		{"tab activate", `{}`, false},
		{"switch", `{"surface_id":"s2"}`, true},
		{"switch", `{}`, false},
		{"dialogs", `{"accept":true,"prompt_text":"ok"}`, true},
		{"dialogs", `{"accept":true,"dismiss":true}`, false},
		{"dialogs", `{"prompt_text":"ok"}`, false},
		{"ops", `{"state":"unknown","limit":5}`, true},
		{"ops", `{"state":"maybe"}`, false},
		{"ops", `{"limit":-1}`, false},
		{"ops show", `{"operation_id":"op-1"}`, true},
		{"ops show", `{}`, false},
		{"ops forget-host", `{"host":"web-3/5f1c0a9e2b7d"}`, true},
		{"ops forget-host", `{}`, false},
		{"ops forget-host", `{"host":"a\u001b[2Jb"}`, false},
		{"history", `{"limit":3}`, true},
		{"history", `{"limit":-3}`, false},
		{"policy set", `{"key":"input","decision":"ask","origin":"https://*.bank.test"}`, true},
		{"policy set", `{"key":"approval-timeout","decision":"30s"}`, true},
		{"policy set", `{"key":"approval-timeout","decision":"soon"}`, false},
		{"policy set", `{"key":"input","decision":"maybe"}`, false},
		{"policy set", `{"decision":"ask"}`, false},
		{"approve", `{"approval_id":"a1"}`, true},
		{"approve", `{}`, false},
		{"settings set", `{"key":"controlEnabled","value":"false"}`, true},
		{"settings set", `{"key":"controlEnabled","value":"maybe"}`, false},
		{"settings set", `{"key":"colour","value":"true"}`, false},
		{"settings set", `{}`, false},
		{"task end", `{"task":"t1"}`, true},
		{"task end", `{}`, false},
		{"dashboard", `{"addr":"127.0.0.1:8765"}`, true},
		{"dashboard", `{"addr":"8765"}`, false},
		{"attach", `{"cdp":"http://127.0.0.1:9222"}`, true},
		{"attach", `{}`, false},
		{"attach", `{"cdp":"http://127.0.0.1:9222","chrome":true}`, false},
		{"attach", `{"cdp":"http://127.0.0.1:9222","channel":"beta"}`, false},
		{"attach", `{"chrome":true,"channel":"nightly"}`, false},
		{"preview", `{"path":"report.html"}`, true},
		{"preview", `{"path":"report.pdf"}`, false},
		{"preview", `{}`, false},
		{"viewport", `{"size":"390x844","scale":2,"mobile":true}`, true},
		{"viewport", `{"size":"reset"}`, true},
		{"viewport", `{"size":"reset","mobile":true}`, false},
		{"viewport", `{"size":"big"}`, false},
		{"viewport", `{"size":"1x1"}`, false},
		{"human-input", `{"surface_id":"s1","kind":"click","x":10,"y":20,"clicks":2}`, true},
		{"human-input", `{"surface_id":"s1","kind":"key","keys":"Enter"}`, true},
		{"human-input", `{"surface_id":"s1","kind":"text","text":"hi"}`, true},
		{"human-input", `{"surface_id":"s1","kind":"wheel","dy":-300}`, true},
		{"human-input", `{"surface_id":"s1","kind":"text"}`, false},
		{"human-input", `{"surface_id":"s1","kind":"key","keys":"Nope+1"}`, false},
		{"human-input", `{"surface_id":"s1","kind":"click","x":-1}`, false},
		{"human-input", `{"surface_id":"s1","kind":"click","clicks":3}`, false},
		{"human-input", `{"surface_id":"s1","kind":"dance"}`, false},
		{"human-input", `{"surface_id":"s1"}`, false},
		{"human-input", `{"kind":"click"}`, false},
		{"import-cookies", `{"profile":"/nonexistent/profile"}`, true}, // the daemon looks for it (handlers.cookiesFile)
		{"close", `null`, true},
	} {
		op, ok := reg.Lookup(tc.op)
		if !ok {
			t.Fatalf("no operation %q", tc.op)
		}
		_, err := Decode(op, json.RawMessage(tc.in))
		if tc.ok && err != nil {
			t.Errorf("%s %s: refused: %v", tc.op, tc.in, err)
		}
		if !tc.ok {
			if e, isReg := apitype.As(err); !isReg || e.Code != apitype.BadInput {
				t.Errorf("%s %s: want BAD_INPUT, got %v", tc.op, tc.in, err)
			}
		}
	}
}

// decode decodes a valid input for an operation of the registry.
func decode[In any](t *testing.T, op, in string) *In {
	t.Helper()
	o, _ := New().Lookup(op)
	v, err := Decode(o, json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	return v.(*In)
}

// TestInputTraits: what an input says of the call for the executor —
// the tab it opens, names, switches to or replaces, the address it opens,
// whether a read writes — and what Validate parsed for the handler.
func TestInputTraits(t *testing.T) {
	open := decode[OpenIn](t, "open", `{"url":"a.test"}`)
	if open.OpensTab() || !open.Replaces() || open.NavigatesTo() != "https://a.test" {
		t.Fatalf("open: %+v", open)
	}
	if o := decode[OpenIn](t, "open", `{"url":"a.test","new_tab":true}`); !o.OpensTab() || o.Replaces() {
		t.Fatal("open --new-tab")
	}
	if n := decode[TabNewIn](t, "tab new", `{"url":"localhost:3000"}`); !n.OpensTab() || n.NavigatesTo() != "http://localhost:3000" {
		t.Fatalf("tab new: %+v", n)
	}
	if c := decode[TabCloseIn](t, "tab close", `{"surface_id":"s4"}`); c.Target() != "s4" {
		t.Fatal("tab close")
	}
	if a := decode[TabIDIn](t, "tab activate", `{"surface_id":"s4"}`); a.SwitchTo() != "s4" {
		t.Fatal("tab activate")
	}
	if s := decode[SurfaceIDIn](t, "switch", `{"surface_id":"s5"}`); s.SwitchTo() != "s5" {
		t.Fatal("switch")
	}
	if p := decode[PreviewIn](t, "preview", `{"path":"a.html"}`); !p.Replaces() {
		t.Fatal("preview")
	}
	dialogs, _ := New().Lookup("dialogs")
	if d := decode[DialogsIn](t, "dialogs", `{"dismiss":true}`); !d.Writes() || dialogs.KindOf(d) != Write || dialogs.KindOf(&DialogsIn{}) != Read {
		t.Fatal("dialogs --dismiss writes; dialogs alone reads")
	}
	if b, mods := decode[ClickIn](t, "click", `{"ref":"e1","button":"right","modifiers":"Shift"}`).Parsed(); b != "right" || mods == 0 {
		t.Fatalf("click parsed %v %v", b, mods)
	}
	if ch := decode[PressIn](t, "press", `{"keys":["Enter","Tab"]}`).Chords(); len(ch) != 2 {
		t.Fatalf("press parsed %v", ch)
	}
	if w := decode[WaitIn](t, "wait", `{"load":true}`).Wait(); w != waitTimeout {
		t.Fatalf("wait default %v", w)
	}
	if w := decode[WaitIn](t, "wait", `{"load":true,"timeout_ms":1500}`).Wait(); w != 1500*time.Millisecond {
		t.Fatalf("wait %v", w)
	}
	if v := decode[ViewportIn](t, "viewport", `{"size":"390x844"}`).Viewport(); v == nil || v.Width != 390 || v.Height != 844 {
		t.Fatalf("viewport %+v", v)
	}
	if v := decode[ViewportIn](t, "viewport", `{"size":"reset"}`).Viewport(); v != nil {
		t.Fatal("viewport reset")
	}
	if d, ok := decode[PolicySetIn](t, "policy set", `{"key":"approval-timeout","decision":"45s"}`).Timeout(); !ok || d != 45*time.Second {
		t.Fatalf("approval timeout %v %v", d, ok)
	}
	if _, ok := decode[PolicySetIn](t, "policy set", `{"key":"input","decision":"ask"}`).Timeout(); ok {
		t.Fatal("a rule is no timeout")
	}
	for in, want := range map[string]string{
		`{"key":"clik","decision":"deny"}`:    `did you mean "click"?`,
		`{"key":"navigat","decision":"deny"}`: `did you mean "navigate"?`,
		`{"key":"zzzzzz","decision":"deny"}`:  "want one of ",
	} {
		op, _ := New().Lookup("policy set")
		_, err := Decode(op, json.RawMessage(in))
		if e, ok := apitype.As(err); !ok || e.Code != apitype.BadInput || !strings.Contains(e.Message, want) {
			t.Errorf("policy set %s: %v, want BAD_INPUT with %q", in, err, want)
		}
	}
	h := decode[HumanInputIn](t, "human-input", `{"surface_id":"s1","kind":"key","keys":"Control+A"}`)
	if _, chord := h.Parsed(); chord.Key.Key == "" || chord.Modifiers == 0 {
		t.Fatalf("human-input parsed %+v", chord)
	}
	if Read.String() != "read" || Write.String() != "write" {
		t.Fatal("kinds")
	}
}

// TestTypedTextIsNotLogged: what an agent or a person types is kept out of
// logs by type (package secret), whichever slog handler logs the input.
func TestTypedTextIsNotLogged(t *testing.T) {
	const pw = "correct-horse-battery"
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		l := slog.New(h)
		l.Info("call", "in", decode[FillIn](t, "fill", `{"ref":"e1","text":"`+pw+`"}`))
		l.Info("call", "in", decode[TypeIn](t, "type", `{"ref":"e1","text":"`+pw+`","submit":true}`))
		l.Info("call", "in", decode[HumanInputIn](t, "human-input", `{"surface_id":"s1","kind":"text","text":"`+pw+`"}`))
	}
	if strings.Contains(buf.String(), pw) || !strings.Contains(buf.String(), `"ref":"e1"`) {
		t.Fatalf("logged:\n%s", buf.String())
	}
}
