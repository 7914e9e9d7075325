package wire

import (
	"encoding/json"
	"fmt"
	"strings"
)

// RefInfo describes one ref of a snapshot.
type RefInfo struct {
	Ref           string `json:"ref" cap:"-"`
	FrameID       string `json:"frameId,omitempty" cap:"-"` // omitted for the top document
	BackendNodeID int64  `json:"backendNodeId,omitempty"`
	Role          string `json:"role" cap:"title"`
	Name          string `json:"name" cap:"title"`
	// Control: something to operate (the interactive view keeps these),
	// not only a line of text or structure.
	Control bool `json:"control,omitempty"`
}

// Snapshot is a rendered snapshot of one surface.
type Snapshot struct {
	SurfaceID string `json:"surface_id" cap:"-"`
	URL       string `json:"url" cap:"url"`
	Title     string `json:"title" cap:"title"`
	Scope     string `json:"scope,omitempty" cap:"-"` // the ref of the subtree shown, when scoped
	// DocumentToken names the document the snapshot shows; a write may
	// carry it to be refused if the surface has moved on since.
	DocumentToken string `json:"document_token,omitempty" cap:"-"`
	// Text is bounded by the snapshot's own budget (max_chars), and each
	// string of the page in it by the renderer.
	Text   string    `json:"text" cap:"-"`
	Refs   []RefInfo `json:"refs"`
	Nodes  int       `json:"nodes"`
	Frames int       `json:"frames"`
	// Chars and Tokens are the size of Text (tokens estimated as
	// chars/4).
	Chars     int  `json:"chars"`
	Tokens    int  `json:"tokens"`
	Truncated bool `json:"truncated,omitempty"`
	// Grep is the text only lines with it were kept for (snapshot
	// --grep), and Matched how many lines had it.
	Grep    string `json:"grep,omitempty" cap:"text"`
	Matched int    `json:"matched,omitempty"`
	// Since says Text is what changed since the caller's last snapshot
	// ("last"; "none: …" when there was none and Text is whole), with
	// how many lines came and went.
	Since   string `json:"since,omitempty" cap:"-"`
	Added   int    `json:"added,omitempty"`
	Removed int    `json:"removed,omitempty"`
	// Full is the whole snapshot a grep or since read was cut from, for
	// the caller's next since; it is never sent.
	Full string `json:"-" cap:"-"`
}

// SnapshotOut is the output of snapshot. The snapshot is embedded (its
// fields are the JSON object's) so that the type can have a Text method
// beside the snapshot's Text field.
type SnapshotOut struct{ Snapshot }

// Text is the snapshot text. How to see the rest of a cut one is each
// front end's to say, in its own terms.
func (o *SnapshotOut) Text() string { return strings.TrimSuffix(o.Snapshot.Text, "\n") }

// ActOut reports an action (click, fill, type, press, …).
type ActOut struct {
	Surface  string `json:"surface_id" cap:"-"`
	Ref      string `json:"ref,omitempty" cap:"-"`
	Executed bool   `json:"executed"`
	// Value is the field's value after fill or type, the chosen values
	// after select.
	Value any     `json:"value,omitempty" cap:"value"`
	Note  string  `json:"note,omitempty" cap:"title"`
	URL   string  `json:"url" cap:"url"`
	X     float64 `json:"x,omitempty"`
	Y     float64 `json:"y,omitempty"`
}

// Text is terse: what happened and to which ref.
func (o *ActOut) Text() string {
	var b strings.Builder
	switch {
	case o.Note != "":
		b.WriteString(o.Note)
	case !o.Executed:
		b.WriteString("not executed")
	default:
		b.WriteString("ok")
	}
	if o.Ref != "" {
		b.WriteString(" ")
		b.WriteString(o.Ref)
	}
	if o.Value != nil {
		fmt.Fprintf(&b, ": %v", o.Value)
	}
	return b.String()
}

// NavOut reports where a surface is after a navigation.
type NavOut struct {
	Surface string `json:"surface_id" cap:"-"`
	URL     string `json:"url" cap:"url"`
	Title   string `json:"title" cap:"title"`
	// Loaded is false when the document committed but its load event had
	// not fired when the deadline came.
	Loaded bool `json:"loaded"`
	// Status is the HTTP status of the document's response (absent for
	// one that came from no HTTP response: data:, about:blank, a file).
	Status int64 `json:"status,omitempty" cap:"-"`
}

// Text is "s1 Title <url>", and the HTTP status when it is an error's.
func (o *NavOut) Text() string {
	s := fmt.Sprintf("%s %q %s", o.Surface, o.Title, o.URL)
	if o.Status >= 400 {
		s += fmt.Sprintf(" (HTTP %d: the server answered with an error)", o.Status)
	}
	if !o.Loaded {
		s += " (still loading)"
	}
	return s
}

// WaitOut reports a met condition.
type WaitOut struct {
	Surface string `json:"surface_id" cap:"-"`
	Matched string `json:"matched" cap:"text"`
	URL     string `json:"url" cap:"url"`
	Waited  string `json:"waited" cap:"-"`
}

// Text says what was seen and how long it took.
func (o *WaitOut) Text() string { return fmt.Sprintf("ok %s after %s", o.Matched, o.Waited) }

// QueryMatch is one element a query found.
type QueryMatch struct {
	Ref     string `json:"ref,omitempty" cap:"-"` // empty for nodes that take no action (a paragraph)
	Role    string `json:"role" cap:"title"`
	Name    string `json:"name,omitempty" cap:"title"`
	States  string `json:"states,omitempty" cap:"-"`
	FrameID string `json:"frameId,omitempty" cap:"-"` // omitted for the top document
	Text    string `json:"text,omitempty" cap:"text"` // the start of its text, when a text was asked for
}

// QueryOut lists what a query found.
type QueryOut struct {
	SurfaceID string       `json:"surface_id" cap:"-"`
	Count     int          `json:"count"`
	Ambiguous bool         `json:"ambiguous"` // more than one match
	Matches   []QueryMatch `json:"matches"`
}

// Text is the count, then one line a match.
func (o *QueryOut) Text() string {
	var b strings.Builder
	switch o.Count {
	case 0:
		b.WriteString("no match")
	case 1:
		b.WriteString("1 match")
	default:
		fmt.Fprintf(&b, "%d matches (ambiguous: pick one by its ref)", o.Count)
	}
	for _, m := range o.Matches {
		b.WriteString("\n- " + m.Role)
		if m.Name != "" {
			fmt.Fprintf(&b, " %q", m.Name)
		}
		if m.States != "" {
			b.WriteString(" [" + strings.ReplaceAll(m.States, " ", "] [") + "]")
		}
		if m.Ref != "" {
			b.WriteString(" [ref=" + m.Ref + "]")
		}
		if m.Text != "" && m.Text != m.Name {
			fmt.Fprintf(&b, ": %s", m.Text)
		}
	}
	if n := o.Count - len(o.Matches); n > 0 {
		fmt.Fprintf(&b, "\n… %d more", n)
	}
	return b.String()
}

// ValueOut is a read value (text, value, html, attr).
type ValueOut struct {
	Ref     string `json:"ref,omitempty" cap:"-"`
	Value   string `json:"value" cap:"page"`
	Present *bool  `json:"present,omitempty"` // attr only: whether the attribute exists
}

// Text is the value itself.
func (o *ValueOut) Text() string { return o.Value }

// BoxOut is an element's box in viewport coordinates.
type BoxOut struct {
	Ref     string  `json:"ref" cap:"-"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	ScrollX float64 `json:"scrollX"`
	ScrollY float64 `json:"scrollY"`
}

// Text is "x y width height".
func (o *BoxOut) Text() string {
	return fmt.Sprintf("x=%g y=%g width=%g height=%g", o.X, o.Y, o.Width, o.Height)
}

// StateOut is an element's role and state.
type StateOut struct {
	Ref        string `json:"ref" cap:"-"`
	Role       string `json:"role" cap:"title"`
	Tag        string `json:"tag" cap:"title"`
	Visible    bool   `json:"visible"`
	Enabled    bool   `json:"enabled"`
	Editable   bool   `json:"editable"`
	Checked    any    `json:"checked" cap:"title"` // true, false, "mixed" or null
	Focused    bool   `json:"focused"`
	InViewport bool   `json:"inViewport"`
}

// Text lists the state words.
func (o *StateOut) Text() string {
	w := []string{o.Role}
	add := func(b bool, yes, no string) {
		if b {
			w = append(w, yes)
		} else if no != "" {
			w = append(w, no)
		}
	}
	add(o.Visible, "visible", "hidden")
	add(o.Enabled, "enabled", "disabled")
	add(o.Editable, "editable", "")
	switch o.Checked {
	case true:
		w = append(w, "checked")
	case false:
		w = append(w, "unchecked")
	case "mixed":
		w = append(w, "mixed")
	}
	add(o.Focused, "focused", "")
	add(o.InViewport, "in-viewport", "")
	return strings.Join(w, " ")
}

// EvalOut is an expression's JSON value.
type EvalOut struct {
	Value json.RawMessage `json:"value"`
}

// Text is the JSON value.
func (o *EvalOut) Text() string { return string(o.Value) }

// ScreenshotOut names the PNG written (and carries it when asked).
type ScreenshotOut struct {
	Path  string `json:"path" cap:"-"`
	Bytes int    `json:"bytes"`
	PNG   []byte `json:"png,omitempty"`
	// Width and Height are the image's size in pixels; Observation the
	// token a pointer action at its coordinates names.
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	Observation string `json:"observation,omitempty" cap:"-"`
	// Labels are the refs an annotated screenshot drew, with their lines
	// and boxes in the image's pixels.
	Labels []Label `json:"labels,omitempty"`
}

// Label is one ref drawn on an annotated screenshot.
type Label struct {
	Ref  string  `json:"ref" cap:"-"`
	Line string  `json:"line" cap:"-"` // made safe by snapshot.ElementLine
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	W    float64 `json:"w"`
	H    float64 `json:"h"`
}

// Text is the file's path, its size and its observation token, and the
// labels an annotated screenshot drew, one a line.
func (o *ScreenshotOut) Text() string {
	if o.Observation == "" {
		return o.Path
	}
	s := fmt.Sprintf("%s (%dx%d, observation %s)", o.Path, o.Width, o.Height, o.Observation)
	for _, l := range o.Labels {
		s += fmt.Sprintf("\n- %s at (%.0f, %.0f) %.0fx%.0f", l.Line, l.X, l.Y, l.W, l.H)
	}
	return s
}

// PickOut is the element at a point of a tab (pick): what a person pointed
// at, to copy.
type PickOut struct {
	SurfaceID string `json:"surface_id" cap:"-"`
	Ref       string `json:"ref" cap:"-"`
	Line      string `json:"line" cap:"-"` // made safe by snapshot.ElementLine
	Locator   string `json:"locator,omitempty" cap:"text"`
	FrameID   string `json:"frame_id,omitempty" cap:"-"`
}

// Text is the element's snapshot line, then its locator.
func (o *PickOut) Text() string {
	if o.Locator == "" {
		return o.Line
	}
	return o.Line + "\nlocator: " + o.Locator
}
