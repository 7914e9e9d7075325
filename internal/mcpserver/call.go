package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupe-dev/loupe/internal/apitype"
	"github.com/loupe-dev/loupe/internal/nearest"
	"github.com/loupe-dev/loupe/internal/ops"
	"github.com/loupe-dev/loupe/internal/wire"
)

// handler serves one tool: its arguments are checked against the schema
// here, so a malformed call is BAD_INPUT and never reaches an operation.
func (s *Server) handler(t *tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := s.call(ctx, t, req.Params.Arguments)
		if err != nil {
			// A call refused before its operation was picked is still
			// about this tool: its hint names the tool's schema.
			if e, ok := apitype.As(err); ok && e.Op == "" {
				e.Op = t.members[0].op.Name
			}
			res = s.errorResult(err)
		}
		return withMeta(res, start), nil
	}
}

func (s *Server) call(ctx context.Context, t *tool, raw json.RawMessage) (*mcp.CallToolResult, error) {
	name := t.tool.Name
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, apitype.Errorf(apitype.BadInput, "arguments of %s are not a JSON object: %v", name, err)
		}
	}
	var unknown []string
	for k := range args {
		if _, ok := t.props[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, apitype.Errorf(apitype.BadInput, "%s has no field %s", name, unknownField(t, unknown[0]))
	}
	for k := range t.lists {
		if v, ok := args[k].(string); ok {
			args[k] = []any{v}
		}
	}
	if err := t.resolved.Validate(args); err != nil {
		return nil, apitype.Errorf(apitype.BadInput, "arguments of %s: %v", name, err)
	}
	snap, snapGiven := args["snapshot"].(bool)
	// operation_id and document_token belong to the write's envelope only
	// on a tool that writes; on one that only reads they are its input's
	// own fields (browser_operations show names the operation to show).
	var opID, docToken string
	if t.write {
		opID, _ = args["operation_id"].(string)
		docToken, _ = args["document_token"].(string)
		delete(args, "snapshot")
		delete(args, "operation_id")
		delete(args, "document_token")
	}
	m, ok := t.pick(args)
	if !ok {
		return nil, apitype.Errorf(apitype.BadInput, "%s: %s %v is not one of its choices", name, t.sel, args[t.sel])
	}
	in := map[string]any{}
	for k, v := range args {
		if !m.fields[k] {
			return nil, apitype.Errorf(apitype.BadInput, "%s: %s does not apply when %s is %v", name, k, t.sel, m.t.Value)
		}
		in[k] = v
	}
	for k, v := range m.t.Defaults {
		if _, given := in[k]; !given {
			in[k] = v
		}
	}
	for k, v := range m.t.Fixed {
		in[k] = v
	}
	input, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var report *apitype.ReportOptions
	if m.op.Kind == ops.Write {
		switch {
		case m.op.Action == ops.ActNavigate && (!snapGiven || snap):
			report = &apitype.ReportOptions{Snapshot: true, MaxChars: navSnapshotChars}
		case m.op.Action == ops.ActNavigate:
			report = &apitype.ReportOptions{}
		case snap:
			report = &apitype.ReportOptions{Snapshot: true}
		default:
			report = &apitype.ReportOptions{Diff: true}
		}
	}
	if opID != "" && m.op.Kind != ops.Write {
		return nil, apitype.Errorf(apitype.BadInput, "%s: operation_id names a write; %s only reads", name, m.op.Name)
	}
	r, err := s.b.Do(ctx, Call{Op: m.op, OpRequest: apitype.OpRequest{Input: input, Report: report, OperationID: opID, DocumentToken: docToken}})
	if err != nil {
		return nil, err
	}
	return s.result(r), nil
}

// aliases are the names agents reach for, from other tools in this field,
// mapped to the field they meant.
var aliases = map[string]string{
	"target": "ref", "element": "ref", "selector": "ref", "locator": "ref",
	"timeout": "timeout_ms", "surfaceId": "surface_id", "surface": "surface_id", "tabId": "surface_id", "id": "surface_id",
	"function": "expression", "script": "expression", "js": "expression", "key": "keys", "value": "values",
	"fullPage": "full", "full_page": "full", "newTab": "new_tab", "maxChars": "max_chars",
	"operationId": "operation_id", "opId": "operation_id", "documentToken": "document_token",
}

// unknownField names an unknown field and the one probably meant.
func unknownField(t *tool, k string) string {
	if want, ok := aliases[k]; ok {
		if _, has := t.props[want]; has {
			return fmt.Sprintf("%q (did you mean %q?)", k, want)
		}
	}
	best, bestD := "", 3
	for _, n := range t.fieldNames() {
		if d := nearest.Distance(strings.ToLower(k), n); d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" {
		return fmt.Sprintf("%q (did you mean %q?)", k, best)
	}
	return fmt.Sprintf("%q (its fields: %s)", k, strings.Join(t.fieldNames(), ", "))
}

// result is a tool's result: the output's text and the report's, with the
// output (and the report) as structured content; a screenshot is the
// image and its path.
func (s *Server) result(r *Reply) *mcp.CallToolResult {
	out, rep := r.Out, r.Report
	var b strings.Builder
	if r.Notice != "" {
		b.WriteString("(" + r.Notice + ")\n")
	}
	switch o := out.(type) {
	case *ops.SnapshotOut:
		b.WriteString(snapText(o.Snapshot.Text, o.Truncated, o.Chars))
	default:
		b.WriteString(text(out))
	}
	if r.ApprovedAfter > 0 {
		fmt.Fprintf(&b, "\n(it waited %s for a person's approval, which the policy asks for)", r.ApprovedAfter.Round(100*time.Millisecond))
	}
	if rep != nil {
		writeReport(&b, rep)
	}
	res := &mcp.CallToolResult{StructuredContent: structured(out, rep, r.OperationID)}
	if shot, ok := out.(*ops.ScreenshotOut); ok && len(shot.PNG) > 0 {
		res.Content = append(res.Content, &mcp.ImageContent{Data: shot.PNG, MIMEType: "image/png"})
		res.StructuredContent = map[string]any{"path": shot.Path, "bytes": shot.Bytes, "width": shot.Width, "height": shot.Height, "observation": shot.Observation}
		b.Reset()
		fmt.Fprintf(&b, "saved %s (%d bytes, %dx%d); observation %s: pass it to browser_pointer to act at this image's pixel coordinates", shot.Path, shot.Bytes, shot.Width, shot.Height, shot.Observation)
		if len(shot.Labels) > 0 {
			res.StructuredContent.(map[string]any)["labels"] = shot.Labels
			b.WriteString("\nthe refs labelled on the image:")
			for _, l := range shot.Labels {
				fmt.Fprintf(&b, "\n- %s at (%.0f, %.0f) %.0fx%.0f", l.Line, l.X, l.Y, l.W, l.H)
			}
		}
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: b.String()})
	return res
}

// structured is the output's JSON object with the report under "report".
// A snapshot's text and refs are the text content already: structured
// content carries only what describes them, so a large page's snapshot
// is not sent twice (nor its ref table once, which an agent never reads).
func structured(out any, rep *apitype.Report, opID string) any {
	if snap, ok := out.(*ops.SnapshotOut); ok {
		return map[string]any{"surface_id": snap.SurfaceID, "url": snap.URL, "title": snap.Title, "chars": snap.Chars,
			"tokens": snap.Tokens, "truncated": snap.Truncated, "nodes": snap.Nodes, "frames": snap.Frames,
			"document_token": snap.DocumentToken}
	}
	if rep != nil && rep.Snapshot != nil {
		r := *rep
		r.Snapshot = &apitype.ReportSnapshot{Chars: rep.Snapshot.Chars, Truncated: rep.Snapshot.Truncated}
		rep = &r
	}
	if rep == nil && opID == "" {
		return out
	}
	b, err := json.Marshal(out)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil || m == nil {
		m = map[string]any{"result": out}
	}
	if rep != nil {
		m["report"] = rep
	}
	if opID != "" {
		m["operation_id"] = opID
	}
	return m
}

// snapText is a snapshot's text for an MCP agent, without the size footer
// (every result carries its size in _meta, loupe/estimatedTokens): a cut
// one says, in tool calls, how to see the rest.
func snapText(t string, truncated bool, chars int) string {
	t = body(t)
	if truncated {
		t += fmt.Sprintf("\n(the rest: browser_snapshot with scope set to a ref from above, viewport: true, interactive: true or depth: N; or max_chars above %d)", chars)
	}
	return t
}

// body drops a snapshot's size footer and its last newline.
func body(t string) string { return strings.TrimSuffix(wire.WithoutFooter(t), "\n") }

// writeReport renders a write's report in tool calls.
func writeReport(b *strings.Builder, r *apitype.Report) {
	if r.Navigated != "" {
		fmt.Fprintf(b, "\nnavigated: %s", r.Navigated)
	}
	if r.SwitchedFrom != "" {
		fmt.Fprintf(b, "\ncurrent surface: %s (was %s)", orNone(r.Surface), r.SwitchedFrom)
	}
	for _, p := range r.Opened {
		fmt.Fprintf(b, "\nopened: %s (browser_tabs {\"action\":\"select\",\"surface_id\":%q} to use it)", p, p)
	}
	for _, p := range r.Closed {
		fmt.Fprintf(b, "\nclosed: %s", p)
	}
	for _, d := range r.Dialogs {
		fmt.Fprintf(b, "\ndialog on %s: %s %q, %s", orNone(d.SurfaceID), d.Type, d.Message, d.Action)
	}
	if r.DownloadsStarted > 0 {
		b.WriteString("\ndownload started (browser_download {\"wait\":true} to wait for it)")
	}
	if r.FileChooser == "pending" {
		b.WriteString("\nfile_chooser: pending: the page asks for files (browser_upload {\"files\":[…]} without a ref answers it)")
	}
	switch {
	case r.SnapshotError != "":
		fmt.Fprintf(b, "\n(no new snapshot: %s)", r.SnapshotError)
	case r.Snapshot != nil:
		b.WriteString("\n\n" + snapText(r.Snapshot.Text, r.Snapshot.Truncated, r.Snapshot.Chars))
	case r.NoBaseline:
		fmt.Fprintf(b, "\n(take browser_snapshot to see %s)", r.Surface)
	case r.Diff != nil && r.Diff.Added+r.Diff.Removed == 0:
		fmt.Fprintf(b, "\nno change to your last snapshot of %s", r.Surface)
	case r.Diff != nil:
		fmt.Fprintf(b, "\nchanges to your last snapshot of %s (+%d -%d):\n%s", r.Surface, r.Diff.Added, r.Diff.Removed, r.Diff.Lines)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
