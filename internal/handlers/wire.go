package handlers

import (
	"encoding/json"

	"github.com/loupe-dev/loupe/internal/engine/action"
	"github.com/loupe-dev/loupe/internal/engine/capture"
	"github.com/loupe-dev/loupe/internal/engine/download"
	"github.com/loupe-dev/loupe/internal/engine/eventlog"
	"github.com/loupe-dev/loupe/internal/engine/nav"
	"github.com/loupe-dev/loupe/internal/engine/status"
	"github.com/loupe-dev/loupe/internal/engine/surface"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// The handlers map engine results onto the outputs (types of package
// wire, the JSON contract) field by field, so a change to an engine type
// never changes the contract by accident.

// mapSlice maps every element of a list; a nil list stays empty, not null,
// where the contract has a list.
func mapSlice[E, W any](in []E, f func(E) W) []W {
	out := make([]W, 0, len(in))
	for _, e := range in {
		out = append(out, f(e))
	}
	return out
}

func snapshotOut(s *capture.Snapshot) *ops.SnapshotOut {
	return &ops.SnapshotOut{Snapshot: wire.Snapshot{
		SurfaceID: s.Surface, URL: s.URL, Title: s.Title, Scope: s.Scope, Text: s.Text,
		Refs: mapSlice(s.Refs, func(r capture.RefInfo) wire.RefInfo {
			return wire.RefInfo{Ref: r.Ref, FrameID: r.FrameID, BackendNodeID: r.BackendNodeID, Role: r.Role, Name: r.Name, Control: r.Control}
		}),
		Nodes: s.Nodes, Frames: s.Frames, Chars: s.Chars, Tokens: s.Tokens, Truncated: s.Truncated,
	}}
}

func actOut(r *action.Result) *ops.ActOut {
	return &ops.ActOut{Surface: r.Surface, Ref: r.Ref, Executed: r.Executed, Value: r.Value, Note: r.Note, URL: r.URL, X: r.X, Y: r.Y}
}

func navOut(r *nav.Result) *ops.NavOut {
	return &ops.NavOut{Surface: r.Surface, URL: r.URL, Title: r.Title, Loaded: r.Loaded, Status: r.Status}
}

func waitOut(r *nav.WaitResult) *ops.WaitOut {
	return &ops.WaitOut{Surface: r.Surface, Matched: r.Matched, URL: r.URL, Waited: r.Waited}
}

func queryOut(r *capture.QueryResult) *ops.QueryOut {
	return &ops.QueryOut{SurfaceID: r.Surface, Count: r.Count, Ambiguous: r.Ambiguous,
		Matches: mapSlice(r.Matches, func(m capture.QueryMatch) wire.QueryMatch {
			return wire.QueryMatch{Ref: m.Ref, Role: m.Role, Name: m.Name, States: m.States, FrameID: m.FrameID, Text: m.Text}
		})}
}

func boxOut(b *action.ElementBox) *ops.BoxOut {
	return &ops.BoxOut{Ref: b.Ref, X: b.X, Y: b.Y, Width: b.Width, Height: b.Height, ScrollX: b.ScrollX, ScrollY: b.ScrollY}
}

func stateOut(s *action.ElementState) *ops.StateOut {
	return &ops.StateOut{Ref: s.Ref, Role: s.Role, Tag: s.Tag, Visible: s.Visible, Enabled: s.Enabled, Editable: s.Editable,
		Checked: s.Checked, Focused: s.Focused, InViewport: s.InViewport}
}

func evalOut(v []byte) *ops.EvalOut { return &ops.EvalOut{Value: json.RawMessage(v)} }

func tabOf(t surface.TabInfo) wire.Tab {
	return wire.Tab{ID: t.ID, Title: t.Title, URL: t.URL, Opener: t.Opener, Crashed: t.Crashed, Partition: t.Partition, Navigating: t.Navigating}
}

func surfaceOf(s surface.Surface) wire.Surface {
	return wire.Surface{ID: s.ID, Kind: s.Kind, ParentID: s.ParentID, Title: s.Title, URL: s.URL,
		Capabilities:   wire.Capabilities{Snapshot: s.Capabilities.Snapshot, Interaction: s.Capabilities.Interaction, RendererEval: s.Capabilities.RendererEval},
		OriginRelation: s.OriginRelation, Crashed: s.Crashed}
}

func windowOf(w surface.Window) wire.Window {
	return wire.Window{Surface: surfaceOf(w.Surface), WindowID: w.WindowID, OpenerID: w.OpenerID}
}

func statusOut(s status.Status) *ops.StatusOut {
	return &ops.StatusOut{Pages: mapSlice(s.Pages, func(p string) string { return p }), Dialogs: s.Dialogs}
}

func consoleRecord(r eventlog.ConsoleRecord) wire.ConsoleRecord {
	return wire.ConsoleRecord{Seq: r.Seq, SurfaceID: r.SurfaceID, Level: r.Level, Text: r.Text, URL: r.URL, Line: r.Line, Time: r.Time}
}

func networkRecord(r eventlog.NetworkRecord) wire.NetworkRecord {
	return wire.NetworkRecord{Seq: r.Seq, SurfaceID: r.SurfaceID, Method: r.Method, URL: r.URL, Type: r.Type, Status: r.Status,
		MIME: r.MIME, Bytes: r.Bytes, Failed: r.Failed, State: r.State, Start: r.Start, DurationMS: r.DurationMS}
}

func dialogRecord(r eventlog.DialogRecord) wire.DialogRecord {
	return wire.DialogRecord{Seq: r.Seq, SurfaceID: r.SurfaceID, Type: r.Type, Message: r.Message, URL: r.URL,
		DefaultPrompt: r.DefaultPrompt, Action: r.Action, PromptText: r.PromptText, Time: r.Time}
}

func dialogPolicy(p eventlog.DialogPolicy) wire.DialogPolicy {
	return wire.DialogPolicy{Mode: p.Mode, PromptText: p.PromptText}
}

func downloadOf(d download.Download) wire.Download {
	return wire.Download{Seq: d.Seq, ID: d.ID, SurfaceID: d.SurfaceID, URL: d.URL, Filename: d.Filename, Path: d.Path,
		State: d.State, Bytes: d.Bytes, Total: d.Total, Started: d.Started, Finished: d.Finished}
}
