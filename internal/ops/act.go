package ops

import (
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loupe-dev/loupe/internal/keys"
	"github.com/loupe-dev/loupe/internal/secret"
)

// DefaultSnapshotChars is the snapshot budget of an agent that did not
// set one: browser_snapshot's, and the CLI's when its output is not a
// terminal (a coding agent's shell tool). A whole large page would flood
// the agent's context.
const DefaultSnapshotChars = 40000

// SnapshotIn is the input of snapshot.
type SnapshotIn struct {
	Interactive bool   `json:"interactive,omitempty" flag:"interactive" short:"i" help:"only actionable nodes (with their frame and place)"`
	Depth       int    `json:"depth,omitempty" flag:"depth" meta:"N" help:"cut each frame's tree below N levels"`
	Viewport    bool   `json:"viewport,omitempty" flag:"viewport" help:"only what intersects the viewport (default: full page)"`
	Locators    bool   `json:"locators,omitempty" flag:"locators" help:"print each ref's stable locator"`
	Scope       string `json:"scope,omitempty" flag:"scope" meta:"TARGET" help:"only the subtree of this element (a ref or locator), also inside frames"`
	MaxChars    int    `json:"max_chars,omitempty" flag:"max-chars" meta:"N" help:"truncate at a line boundary after N characters (default: everything on a terminal, 40000 when the output is not a terminal)" mcphelp:"truncate at a line boundary after N characters"`
	NoCompact   bool   `json:"no_compact,omitempty" flag:"no-compact" help:"show the raw tree, without the compact transform"`
	// NoCache walks the page afresh even when nothing the page agent
	// watches has changed since its last walk (a CLI switch, for when a
	// page is suspected of changing unseen: see the agent's last walk).
	NoCache bool `json:"no_cache,omitempty" flag:"no-cache" help:"walk the page afresh, without reusing what the last walk kept"`
	// BackendIDs adds each ref's DOM backendNodeId (the CLI asks for it
	// with --json).
	BackendIDs bool `json:"backend_ids,omitempty" mcp:"-" cli:"set by --json"`
	// Grep and Since make a snapshot cheap to read (see snapshot.Grep and
	// sinceLast); Out is the CLI's: the text goes to a file.
	Grep  string `json:"grep,omitempty" flag:"grep" meta:"TEXT" help:"only the lines that contain TEXT (any case), with their ancestors and refs"`
	Since string `json:"since,omitempty" flag:"since" meta:"last" enum:"last" help:"only what changed since your last snapshot of this surface (+ added, - removed lines)"`
	Out   string `json:"-" flag:"o" meta:"FILE" help:"write the snapshot to FILE and print its path and size"`
}

// Validate checks the numbers and the scope.
func (in *SnapshotIn) Validate() error {
	if in.Depth < 0 || in.MaxChars < 0 {
		return usage("%s and %s take a positive number", fld("depth"), fld("max_chars"))
	}
	if in.MaxChars > 0 && in.MaxChars < 200 {
		return usage("%s %d is too small to show anything (at least 200)", fld("max_chars"), in.MaxChars)
	}
	if in.Since != "" && in.Since != "last" {
		return usage("%s %q: want last (what changed since your last snapshot)", fld("since"), in.Since)
	}
	if len(in.Grep) > 1000 {
		return usage("%s: at most 1000 characters", fld("grep"))
	}
	return checkTarget("scope", in.Scope, false)
}

// Shape is what of a snapshot's options decides which lines it has: two
// snapshots of one shape can be compared line by line (since last). How
// it is read (grep, since), whether the walk is fresh (no_cache), where
// it goes (-o) and the JSON-only backend ids do not change the lines.
func (in SnapshotIn) Shape() SnapshotIn {
	in.Grep, in.Since, in.NoCache, in.Out, in.BackendIDs = "", "", false, "", false
	return in
}

// TargetIn names one element.
type TargetIn struct {
	Target string `json:"ref" arg:"TARGET" help:"the element: a ref from a snapshot (e12) or a locator (role=button[name=\"Save\"])"`
}

// Validate checks the ref.
func (in *TargetIn) Validate() error { return checkTarget("ref", in.Target, true) }

// ClickIn is the input of click.
type ClickIn struct {
	Target    string `json:"ref" arg:"TARGET" help:"the element: a ref from a snapshot (e12) or a locator (role=button[name=\"Save\"])"`
	Button    string `json:"button,omitempty" flag:"button" enum:"left,right,middle" help:"left (default), right or middle"`
	Modifiers string `json:"modifiers,omitempty" flag:"modifiers" help:"keys held during the click, e.g. Shift or Control+Shift"`

	button keys.Button
	mods   int64
}

// Parsed is the button and the modifiers Validate parsed.
func (in *ClickIn) Parsed() (keys.Button, int64) { return in.button, in.mods }

// Validate checks the ref, button and modifiers.
func (in *ClickIn) Validate() error {
	if err := checkTarget("ref", in.Target, true); err != nil {
		return err
	}
	b, err := keys.ParseButton(in.Button)
	if err != nil {
		return usage("%v", err)
	}
	in.button = b
	if in.Modifiers != "" {
		c, err := keys.ParseChord(in.Modifiers + "+a")
		if err != nil {
			return usage("%s %q: want Shift, Control, Alt, Meta joined by +", fld("modifiers"), in.Modifiers)
		}
		in.mods = c.Modifiers
	}
	return nil
}

// FillIn is the input of fill.
type FillIn struct {
	Target string        `json:"ref" arg:"TARGET" help:"the field: a ref (e12) or a locator"`
	Text   secret.String `json:"text" arg:"TEXT" help:"the new content (empty clears the field)"`
}

// LogValue logs the input with its text redacted (it may be a password).
func (in *FillIn) LogValue() slog.Value {
	return slog.GroupValue(slog.String("ref", in.Target), slog.Any("text", in.Text))
}

// Validate checks the ref.
func (in *FillIn) Validate() error { return checkTarget("ref", in.Target, true) }

// TypeIn is the input of type.
type TypeIn struct {
	Target string        `json:"ref,omitempty" arg:"[TARGET]" help:"field to type into; without it, types into the focused element"`
	Text   secret.String `json:"text" arg:"TEXT" help:"text to type, key by key"`
	Clear  bool          `json:"clear,omitempty" flag:"clear" help:"empty the field first"`
	Submit bool          `json:"submit,omitempty" flag:"submit" help:"press Enter after the text"`
}

// LogValue logs the input with its text redacted (it may be a password).
func (in *TypeIn) LogValue() slog.Value {
	return slog.GroupValue(slog.String("ref", in.Target), slog.Any("text", in.Text), slog.Bool("clear", in.Clear), slog.Bool("submit", in.Submit))
}

// Validate checks the optional ref.
func (in *TypeIn) Validate() error {
	if in.Text == "" {
		return usage("missing %s", fld("text"))
	}
	if in.Clear && in.Target == "" {
		return usage("%s needs a %s field", fld("clear"), fld("ref"))
	}
	return checkTarget("ref", in.Target, false)
}

// DragIn is the input of drag.
type DragIn struct {
	From string `json:"from" arg:"FROM" help:"element to drag (ref or locator)"`
	To   string `json:"to" arg:"TO" help:"element to drop it on"`
}

// Validate checks both targets.
func (in *DragIn) Validate() error {
	if err := checkTarget("from", in.From, true); err != nil {
		return err
	}
	return checkTarget("to", in.To, true)
}

// PressIn is the input of press.
type PressIn struct {
	Keys []string `json:"keys" arg:"KEYS..." help:"keys or chords pressed in order: Enter, Tab, Control+A, Shift+Tab"`

	chords []keys.Chord
}

// Chords are the keys Validate parsed.
func (in *PressIn) Chords() []keys.Chord { return in.chords }

// Validate parses every chord.
func (in *PressIn) Validate() error {
	if len(in.Keys) == 0 {
		return usage("missing %s (e.g. Enter, Control+A)", fld("keys"))
	}
	in.chords = in.chords[:0]
	for _, k := range in.Keys {
		c, err := keys.ParseChord(k)
		if err != nil {
			return usage("%v", err)
		}
		in.chords = append(in.chords, c)
	}
	return nil
}

// SelectIn is the input of select.
type SelectIn struct {
	Target string   `json:"ref" arg:"TARGET" help:"the <select>: a ref (e12) or a locator"`
	Values []string `json:"values" arg:"VALUE..." help:"option values or labels to choose"`
}

// Validate checks the ref and that there is a value.
func (in *SelectIn) Validate() error {
	if err := checkTarget("ref", in.Target, true); err != nil {
		return err
	}
	if len(in.Values) == 0 {
		return usage("missing %s", fld("values"))
	}
	return nil
}

// ScrollIn is the input of scroll.
type ScrollIn struct {
	Target string  `json:"ref,omitempty" arg:"[TARGET]" help:"element to scroll into view (and to turn the wheel over)"`
	DX     float64 `json:"dx,omitempty" flag:"dx" help:"horizontal wheel delta in CSS pixels"`
	DY     float64 `json:"dy,omitempty" flag:"dy" help:"vertical wheel delta in CSS pixels"`
}

// maxWheel bounds a wheel turn: a delta beyond a million CSS pixels is no
// scroll anyone means, and Chromium left the page unable to take input
// after one of 1e308 (every later input timed out).
const maxWheel = 1e6

// Validate checks that there is something to do, with finite, bounded
// deltas.
func (in *ScrollIn) Validate() error {
	for _, d := range []struct {
		name string
		v    float64
	}{{"dx", in.DX}, {"dy", in.DY}} {
		if math.IsNaN(d.v) || math.IsInf(d.v, 0) || math.Abs(d.v) > maxWheel {
			return usage("%s %v: want a number of CSS pixels between -%g and %g", fld(d.name), d.v, maxWheel, maxWheel)
		}
	}
	if in.Target == "" && in.DX == 0 && in.DY == 0 {
		return usage("give a %s to scroll into view, or %s/%s", fld("ref"), fld("dx"), fld("dy"))
	}
	return checkTarget("ref", in.Target, false)
}

// PointerIn is the input of pointer: an action at a screenshot's
// coordinates, valid while the screenshot's observation is current (see
// action.Pointer).
type PointerIn struct {
	Action string  `json:"action" arg:"ACTION" enum:"click,dblclick,move,down,up,wheel" help:"click, dblclick, move, down, up (the left button) or wheel"`
	X      float64 `json:"x" arg:"X" help:"the screenshot's pixel column, from its left edge"`
	Y      float64 `json:"y" arg:"Y" help:"the screenshot's pixel row, from its top edge"`
	Obs    string  `json:"observation" flag:"obs" meta:"TOKEN" help:"the observation token the screenshot returned"`
	DX     float64 `json:"dx,omitempty" flag:"dx" help:"wheel: horizontal delta in CSS pixels"`
	DY     float64 `json:"dy,omitempty" flag:"dy" help:"wheel: vertical delta in CSS pixels"`
}

// pointerActions are PointerIn's actions.
var pointerActions = []string{"click", "dblclick", "move", "down", "up", "wheel"}

// Validate checks the action, the coordinates and the token.
func (in *PointerIn) Validate() error {
	if !slices.Contains(pointerActions, in.Action) {
		return usage("%s %q: one of %s", fld("action"), in.Action, strings.Join(pointerActions, ", "))
	}
	for _, v := range []float64{in.X, in.Y, in.DX, in.DY} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > maxWheel {
			return usage("%s, %s, %s and %s take finite numbers up to %g", fld("x"), fld("y"), fld("dx"), fld("dy"), maxWheel)
		}
	}
	if in.X < 0 || in.Y < 0 {
		return usage("%s and %s count from the screenshot's top-left corner: not negative", fld("x"), fld("y"))
	}
	if in.Action == "wheel" && in.DX == 0 && in.DY == 0 {
		return usage("a wheel turn needs %s or %s", fld("dx"), fld("dy"))
	}
	if !strings.HasPrefix(in.Obs, "obs-") || len(in.Obs) > 64 {
		return usage("missing or malformed %s: pass the token a screenshot returned (obs-…)", fld("observation"))
	}
	return nil
}

// DropIn is the input of drop: files or data dropped on an element from
// outside the page. The CLI reads the files it names and sends them, as
// for upload; other clients name files of the session's files.
type DropIn struct {
	Target   string       `json:"ref" arg:"TARGET" help:"the element to drop on: a ref or a locator"`
	Files    []string     `json:"files,omitempty" arg:"FILE..." help:"files to drop"`
	Data     []string     `json:"data,omitempty" flag:"data" meta:"MIME=VALUE" help:"data to drop, by MIME type (text/plain=hello); repeat for more"`
	Contents []UploadFile `json:"contents,omitempty" mcp:"-" cli:"filled from the FILE arguments, which the CLI reads"`
}

// Validate checks the target, that something is dropped, and the data.
func (in *DropIn) Validate() error {
	if err := checkTarget("ref", in.Target, true); err != nil {
		return err
	}
	if len(in.Files)+len(in.Contents)+len(in.Data) == 0 {
		return usage("give %s or %s to drop", fld("files"), fld("data"))
	}
	total := 0
	for _, d := range in.Data {
		mime, _, ok := strings.Cut(d, "=")
		if !ok || !strings.Contains(mime, "/") || strings.ContainsAny(mime, " ;") {
			return usage("%s %q: want MIME=VALUE, such as text/plain=hello", fld("data"), d)
		}
		total += len(d)
	}
	if total > 1<<20 {
		return usage("%s: at most 1 MiB in all", fld("data"))
	}
	for _, c := range in.Contents {
		if c.Name == "" || c.Name != filepath.Base(c.Name) || c.Name[0] == '.' {
			return usage("file name %q: want a plain name", c.Name)
		}
	}
	return nil
}

// UploadIn is the input of upload. The CLI reads the files named on its
// command line and sends their contents; other clients name files already
// in the session's files directory. A path is never taken from a client
// as is: everything handed to the page lives in the session's directory.
type UploadIn struct {
	Target string   `json:"ref,omitempty" arg:"[TARGET]" help:"the file input (or what opens it): a ref or a locator; without it, the file chooser a click opened" mcphelp:"the file input (or what opens it): a ref or a locator; leave it out to answer the file chooser a click opened"`
	Files  []string `json:"files,omitempty" arg:"FILE..." help:"files to choose"`
	// Chooser says the files answer the file chooser the page opened (no
	// TARGET): the CLI's way to tell its first FILE from a TARGET.
	Chooser  bool         `json:"chooser,omitempty" flag:"chooser" mcp:"-" help:"answer the file chooser a click opened, instead of naming a TARGET"`
	Contents []UploadFile `json:"contents,omitempty" mcp:"-" cli:"filled from the FILE arguments, which the CLI reads"`
}

// UploadFile is one file sent with an upload.
type UploadFile struct {
	Name string `json:"name"`
	Data []byte `json:"data"`
}

// Validate checks the ref and that there are files.
func (in *UploadIn) Validate() error {
	if in.Chooser && in.Target != "" {
		// upload --chooser A B: A is a file, not a target.
		in.Files, in.Target = append([]string{in.Target}, in.Files...), ""
	}
	if err := checkTarget("ref", in.Target, false); err != nil {
		return err
	}
	if len(in.Files)+len(in.Contents) == 0 {
		return usage("missing %s", fld("files"))
	}
	for _, c := range in.Contents {
		if c.Name == "" || c.Name != filepath.Base(c.Name) || c.Name[0] == '.' {
			return usage("file name %q: want a plain name", c.Name)
		}
	}
	return nil
}

func actOps() []*Op {
	return []*Op{
		describe[SnapshotIn, SnapshotOut]("snapshot", "print the page as a tree of roles and names, with a ref on every actionable node", Read, actTimeout).snapshots().mcp(Tool{Name: "browser_snapshot", Core: true, Defaults: map[string]any{"max_chars": DefaultSnapshotChars}, Desc: "The page as a tree of roles and names, frames included, with [ref=eN] on every line an agent can act on."}),
		describe[ClickIn, ActOut]("click", "click an element (trusted mouse input at its centre)", Write, actTimeout).mcp(Tool{Name: "browser_click", Core: true, Select: "double", Value: false, Default: true, Desc: "Click an element (trusted mouse input) by ref or locator; reports what changed."}),
		describe[ClickIn, ActOut]("dblclick", "double-click an element", Write, actTimeout).mcp(Tool{Name: "browser_click", Select: "double", Value: true}),
		describe[FillIn, ActOut]("fill", "replace the content of a field with text", Write, actTimeout).mcp(Tool{Name: "browser_fill", Desc: "Replace the content of a field with text in one step; reports what changed."}),
		describe[TypeIn, ActOut]("type", "type text key by key (into TARGET, or the focused element)", Write, actTimeout).mcp(Tool{Name: "browser_type", Core: true, Desc: "Type text into a field key by key (clear first, submit with Enter if asked); reports what changed."}),
		describe[DragIn, ActOut]("drag", "drag an element onto another (pointer drags and HTML5 drag and drop)", Write, actTimeout).mcp(Tool{Name: "browser_drag", Desc: "Drag an element onto another (pointer drags and HTML5 drag and drop)."}),
		describe[PressIn, ActOut]("press", "press keys or chords on the focused element", Write, actTimeout).mcp(Tool{Name: "browser_press", Core: true, Desc: "Press keys or chords (Enter, Tab, Escape, Control+A) on the focused element."}),
		describe[TargetIn, ActOut]("hover", "move the mouse over an element", Write, actTimeout).mcp(Tool{Name: "browser_hover", Desc: "Move the mouse over an element."}),
		describe[TargetIn, ActOut]("focus", "focus an element", Write, actTimeout).mcp(Tool{Name: "browser_focus", Desc: "Focus an element without clicking it."}),
		describe[SelectIn, ActOut]("select", "choose options of a <select> by value or label", Write, actTimeout).mcp(Tool{Name: "browser_select", Core: true, Desc: "Choose options of a <select> by value or label."}),
		describe[TargetIn, ActOut]("check", "check a checkbox, radio button or switch", Write, actTimeout).mcp(Tool{Name: "browser_check", Select: "checked", Value: true, Default: true, Desc: "Check (or with checked: false, uncheck) a checkbox, radio button or switch."}),
		describe[TargetIn, ActOut]("uncheck", "uncheck a checkbox or switch", Write, actTimeout).mcp(Tool{Name: "browser_check", Select: "checked", Value: false}),
		describe[UploadIn, ActOut]("upload", "choose files for a file input", Write, actTimeout).as(ActUpload).mcp(Tool{Name: "browser_upload", Desc: "Choose files for a file input; files are named in the session's files directory."}),
		describe[DropIn, ActOut]("drop", "drop files or data from outside the page onto an element (trusted drag events)", Write, actTimeout).as(ActUpload).mcp(Tool{Name: "browser_drop", Desc: "Drop files (of the session's files) or data (MIME=VALUE, such as text/plain=hello) from outside the page onto an element, as a person dragging them in would."}),
		describe[PointerIn, ActOut]("pointer", "act at a screenshot's coordinates (canvases, maps, games) while that screenshot's observation is current", Write, actTimeout).mcp(Tool{Name: "browser_pointer", Desc: "Act at a screenshot's pixel coordinates (x, y) — for canvases, maps and games without refs — while the page is as that screenshot saw it: pass its observation token; after a navigation, scroll, resize, zoom or take-over it is STALE_OBSERVATION, not executed."}),
		describe[ScrollIn, ActOut]("scroll", "scroll an element into view, or turn the mouse wheel", Write, actTimeout).mcp(Tool{Name: "browser_scroll", Core: true, Desc: "Scroll an element into view, or turn the mouse wheel by dx/dy pixels."}),
	}
}
