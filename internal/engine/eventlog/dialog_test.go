package eventlog

import (
	"strings"
	"testing"
)

func TestAnswerDialog(t *testing.T) {
	l := New()
	src := source{frames: map[string]string{"F1": "s3"}}
	var m FloodMeter
	open := func(params string) DialogAnswer {
		return l.AnswerDialog(event("Page.javascriptDialogOpening", params), src, &m)
	}
	// auto: alerts accepted, prompts dismissed; the surface by frame.
	a := open(`{"type":"alert","message":"hi","frameId":"F1"}`)
	if a.Hold || a.Params["accept"] != true || a.Record.Action != "accepted" || a.Record.SurfaceID != "s3" || a.Record.Message != "hi" {
		t.Fatalf("alert: %+v", a)
	}
	a = open(`{"type":"prompt","defaultPrompt":"d"}`)
	if a.Params["accept"] != false || a.Params["promptText"] != nil || a.Record.Action != "dismissed" || a.Record.SurfaceID != "" {
		t.Fatalf("prompt under auto: %+v", a)
	}
	// accept: a prompt gets the policy's text, else its default.
	l.SetDialogPolicy(DialogPolicy{Mode: "accept"})
	if a = open(`{"type":"prompt","defaultPrompt":"d"}`); a.Params["promptText"] != "d" || a.Record.PromptText != "d" {
		t.Fatalf("prompt, default text: %+v", a)
	}
	l.SetDialogPolicy(DialogPolicy{Mode: "accept", PromptText: "p"})
	if a = open(`{"type":"prompt","defaultPrompt":"d"}`); a.Params["promptText"] != "p" || a.Record.Action != "accepted" {
		t.Fatalf("prompt, policy text: %+v", a)
	}
	// Nothing is recorded by deciding.
	if n := l.DialogCount(); n != 0 {
		t.Fatalf("%d dialogs recorded", n)
	}
	// The dialog that makes a flood is held.
	m = FloodMeter{}
	var held int
	for range FloodDialogs {
		if a = open(`{"type":"alert"}`); a.Hold {
			held++
		}
	}
	if held != 1 || !a.Hold || !strings.HasPrefix(a.Record.Action, "held open:") {
		t.Fatalf("flood: %d held, last %+v", held, a)
	}
}
