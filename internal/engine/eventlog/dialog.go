package eventlog

import (
	"fmt"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/loupe-dev/loupe/internal/cdp"
)

// DialogAnswer is how loupe answers one JavaScript dialog that opened:
// what it tells the browser and what it records.
type DialogAnswer struct {
	// Params are Page.handleJavaScriptDialog's (accept, and promptText
	// for an accepted prompt); unused when Hold.
	Params map[string]any
	// Hold is set when the dialog makes a flood: it is to be held open,
	// not answered (the engine marks the session's renderer held).
	Hold bool
	// Record is the dialog's record, to add (AddDialog) once answered;
	// a failed answer changes its Action.
	Record DialogRecord
}

// AnswerDialog decides the answer to a Page.javascriptDialogOpening event
// of a page session: by the dialog policy, or held open when it makes a
// flood (flood is the session's meter). It names the dialog's surface by
// its frame (src) and records nothing itself: the engine, which answers
// the browser, adds the record when it has.
func (l *Log) AnswerDialog(ev cdp.Event, src Source, flood *FloodMeter) DialogAnswer {
	var e struct {
		Type          string `json:"type"`
		Message       string `json:"message"`
		URL           string `json:"url"`
		FrameID       string `json:"frameId"`
		DefaultPrompt string `json:"defaultPrompt"`
	}
	_ = jsonv2.Unmarshal(ev.Params, &e)
	pol := l.DialogPolicy()
	accept := pol.Accepts(e.Type)
	a := DialogAnswer{Params: map[string]any{"accept": accept}}
	r := DialogRecord{Type: e.Type, Message: e.Message, URL: e.URL, DefaultPrompt: e.DefaultPrompt, Action: "dismissed", Time: time.Now()}
	if accept {
		r.Action = "accepted"
		if e.Type == "prompt" {
			text := pol.PromptText
			if text == "" {
				text = e.DefaultPrompt
			}
			a.Params["promptText"] = text
			r.PromptText = text
		}
	}
	if e.FrameID != "" {
		r.SurfaceID = src.FrameSurface(e.FrameID)
	}
	if flood.Add(r.Time) {
		a.Hold = true
		r.Action = fmt.Sprintf("held open: the page opened %d dialogs within %s; navigate, reload or close the tab", FloodDialogs, FloodWindow)
	}
	a.Record = r
	return a
}
