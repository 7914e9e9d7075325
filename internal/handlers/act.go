package handlers

import (
	"context"
	"strings"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/engine"
	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/chooser"
	"github.com/loupe-dev/loupe/internal/filesdir"
	"github.com/loupe-dev/loupe/internal/keys"
	"github.com/loupe-dev/loupe/internal/ops"
)

func act(r *action.Result, err error) (*ops.ActOut, error) {
	if err != nil {
		return nil, err
	}
	return actOut(r), nil
}

func actHandlers() map[string]Handler {
	click := func(count int) Handler {
		return Tab(func(ctx context.Context, t *engine.Surface, in *ops.ClickIn) (*ops.ActOut, error) {
			button, mods := in.Parsed()
			return act(action.Click(ctx, t, in.Target, action.ClickOptions{Button: button, Count: count, Modifiers: mods}))
		})
	}
	onTarget := func(f func(ctx context.Context, t *engine.Surface, ref string) (*action.Result, error)) Handler {
		return Tab(func(ctx context.Context, t *engine.Surface, in *ops.TargetIn) (*ops.ActOut, error) {
			return act(f(ctx, t, in.Target))
		})
	}
	return map[string]Handler{
		"snapshot": Func(snapshotOf),
		"click":    click(1),
		"dblclick": click(2),
		"fill": Tab(func(ctx context.Context, t *engine.Surface, in *ops.FillIn) (*ops.ActOut, error) {
			return act(action.Fill(ctx, t, in.Target, string(in.Text)))
		}),
		"type": Tab(func(ctx context.Context, t *engine.Surface, in *ops.TypeIn) (*ops.ActOut, error) {
			return act(typeText(ctx, t, in))
		}),
		"drag": Tab(func(ctx context.Context, t *engine.Surface, in *ops.DragIn) (*ops.ActOut, error) {
			return act(action.Drag(ctx, t, in.From, in.To))
		}),
		"press": Tab(func(ctx context.Context, t *engine.Surface, in *ops.PressIn) (*ops.ActOut, error) {
			return act(action.Press(ctx, t, in.Chords()))
		}),
		"hover": onTarget(action.Hover),
		"focus": onTarget(action.Focus),
		"select": Tab(func(ctx context.Context, t *engine.Surface, in *ops.SelectIn) (*ops.ActOut, error) {
			return act(action.Select(ctx, t, in.Target, in.Values))
		}),
		"check": onTarget(func(ctx context.Context, t *engine.Surface, ref string) (*action.Result, error) {
			return action.SetChecked(ctx, t, ref, true)
		}),
		"uncheck": onTarget(func(ctx context.Context, t *engine.Surface, ref string) (*action.Result, error) {
			return action.SetChecked(ctx, t, ref, false)
		}),
		"upload":  Func(upload),
		"pointer": Func(pointer),
		"drop":    Func(drop),
		"scroll": Tab(func(ctx context.Context, t *engine.Surface, in *ops.ScrollIn) (*ops.ActOut, error) {
			return act(action.Scroll(ctx, t, in.Target, action.ScrollOptions{DX: in.DX, DY: in.DY}))
		}),
	}
}

// snapshotOf takes a snapshot of the caller's surface; grep and since
// read it cheaply (see snapread.go), the latter against the caller's last.
func snapshotOf(ctx context.Context, d *Deps, in *ops.SnapshotIn) (*ops.SnapshotOut, error) {
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	// The token is read first: had the document changed during the
	// capture, a write carrying it is refused, never misdirected.
	token := capture.DocumentToken(t)
	// grep reads the whole page (a match may lie past any budget); the
	// budget then bounds what it prints. (since compares like with like:
	// a budgeted snapshot with the last one taken with that budget.)
	walkBudget := in.MaxChars
	if in.Grep != "" {
		walkBudget = 0
	}
	s, err := capture.Take(ctx, t, capture.SnapshotOptions{
		NoCompact: in.NoCompact, BackendIDs: in.BackendIDs, Interactive: in.Interactive, Depth: in.Depth,
		Viewport: in.Viewport, Locators: in.Locators, Scope: in.Scope, MaxChars: walkBudget, NoCache: in.NoCache,
	})
	if err != nil {
		return nil, err
	}
	out := snapshotOut(s)
	out.DocumentToken = token
	if in.Grep != "" {
		grep(out, in.Grep)
		if in.MaxChars > 0 {
			cut(out, in.MaxChars)
		}
	}
	if in.Since == "last" {
		sinceLast(d.Caller, in, out)
	}
	return out, nil
}

// filesOf are the paths of the files a write hands the page: those a
// client sent, stored in the session's files first, then those it names
// there.
func filesOf(d *Deps, contents []ops.UploadFile, names []string) ([]string, error) {
	sent := make([]filesdir.File, len(contents))
	for i, c := range contents {
		sent[i] = filesdir.File{Name: c.Name, Data: c.Data}
	}
	paths, err := d.Files.SaveUploads(sent)
	if err != nil {
		return nil, err
	}
	for _, f := range names {
		p, err := d.Files.Path(f)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// upload hands the page files of the session's files directory (those a
// client sent are stored there first).
func upload(ctx context.Context, d *Deps, in *ops.UploadIn) (*ops.ActOut, error) {
	paths, err := filesOf(d, in.Contents, in.Files)
	if err != nil {
		return nil, err
	}
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	if in.Target == "" {
		if err := chooser.Answer(ctx, t, paths); err != nil {
			return nil, err
		}
		return &ops.ActOut{Surface: t.ID, Executed: true, URL: t.URL(), Value: paths, Note: "answered the file chooser"}, nil
	}
	return act(action.Upload(ctx, t, in.Target, paths))
}

// typeText types, after emptying the field with --clear, and presses Enter
// with --submit. A failure after the first step reports that input was
// sent.
func typeText(ctx context.Context, t *engine.Surface, in *ops.TypeIn) (*action.Result, error) {
	if in.Clear {
		if _, err := action.Fill(ctx, t, in.Target, ""); err != nil {
			return nil, err
		}
	}
	r, err := action.Type(ctx, t, in.Target, string(in.Text))
	if err != nil {
		if in.Clear {
			return nil, executed(err)
		}
		return nil, err
	}
	if in.Submit {
		enter, _ := keys.ParseChord("Enter")
		if _, err := action.Press(ctx, t, []keys.Chord{enter}); err != nil {
			return nil, executed(err)
		}
		r.Note = "typed and submitted"
	}
	return r, nil
}

// executed marks a failure that came after an earlier step of the same
// operation changed the page: its outcome is not "not executed".
func executed(err error) error {
	if e, ok := apitype.As(err); ok {
		return e.Executed()
	}
	return err
}

// pointer acts at a screenshot's coordinates in the caller's current tab,
// while the screenshot's observation is current there: the same tab,
// take-over epoch, document, viewport, scroll position and zoom (see
// action.Pointer). Every refusal comes before any input is sent.
func pointer(ctx context.Context, d *Deps, in *ops.PointerIn) (*ops.ActOut, error) {
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	obs, ok := action.Observed(t.Browser(), in.Obs)
	switch {
	case !ok:
		return nil, apitype.Errorf(apitype.StaleObservation, "observation %s is not known (it is from an older screenshot, another session or a daemon before a restart)", in.Obs)
	case obs.Surface != t.ID:
		e := apitype.Errorf(apitype.RefWrongSurface, "observation %s is of %s, not of your current tab %s", in.Obs, obs.Surface, t.ID)
		e.SurfaceID = obs.Surface
		return nil, e
	}
	if _, epoch := d.Control.Mode(t.PageID()); epoch != obs.Epoch {
		return nil, apitype.Errorf(apitype.StaleObservation, "the tab changed hands (a person took it over) since the screenshot: its coordinates no longer name what it showed")
	}
	return act(action.Pointer(ctx, t, obs, action.PointerOptions{Action: in.Action, X: in.X, Y: in.Y, DX: in.DX, DY: in.DY}))
}

// drop drops files and data onto an element: the files a client sent are
// stored in the session's files first, as for upload.
func drop(ctx context.Context, d *Deps, in *ops.DropIn) (*ops.ActOut, error) {
	paths, err := filesOf(d, in.Contents, in.Files)
	if err != nil {
		return nil, err
	}
	var items []action.DropItem
	for _, kv := range in.Data {
		mime, value, _ := strings.Cut(kv, "=")
		items = append(items, action.DropItem{MIME: mime, Data: value})
	}
	t, err := d.Caller.Tab(ctx)
	if err != nil {
		return nil, err
	}
	return act(action.Drop(ctx, t, in.Target, paths, items))
}
